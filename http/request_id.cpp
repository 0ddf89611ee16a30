// Request ids: validation and a fast per-thread generator.
#include <tiffany/http/request_id.hpp>

#include <cstdint>
#include <cstring>

#include <tiffany/coro/entropy.hpp>

namespace tiffany::http {
namespace {

constexpr std::size_t kMaxRequestIdLength = 128;

bool is_id_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.' || c == ':' || c == '+' || c == '/' || c == '=' || c == '@';
}

// xoshiro256**: fast and statistically strong; ids need uniqueness, not secrecy.
// Seeded from fill_entropy, and again whenever the thread's entropy source
// changes (entropy_epoch), so a simulated run's ids come from its seed.
class IdGenerator {
 public:
  std::uint64_t next() noexcept {
    if (seeded_epoch_ != entropy_epoch()) seed();
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  void seed() noexcept {
    fill_entropy(state_, sizeof state_);
    if ((state_[0] | state_[1] | state_[2] | state_[3]) == 0) state_[0] = 1;  // the one forbidden state
    seeded_epoch_ = entropy_epoch();
  }

  std::uint64_t state_[4] = {};
  std::uint64_t seeded_epoch_ = ~std::uint64_t{0};  // never an epoch: the first id seeds
};

}  // namespace

bool is_valid_request_id(std::string_view id) noexcept {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (const char c : id) {
    if (!is_id_char(c)) return false;
  }
  return true;
}

namespace {

// The 8 hex digits of `bits`, lowest nibble first (the order ids always
// had), as 8 bytes to store little-endian. Why bit tricks: one id per
// request, and a digit at a time through std::string cost ~400
// instructions, as much as parsing the request line.
std::uint64_t hex_digits(std::uint32_t bits) noexcept {
  std::uint64_t x = bits;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;  // each 16 bits to its own 32
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;   // each byte to its own 16
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;   // each nibble to its own byte
  const std::uint64_t letters = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;  // 1 where >= 10
  return x + 0x3030303030303030ULL + letters * ('a' - '0' - 10);
}

}  // namespace

void make_request_id(std::string& out) {
  thread_local IdGenerator generator;
  char id[32];
  for (int half = 0; half < 2; ++half) {
    const std::uint64_t bits = generator.next();
    const std::uint64_t low = hex_digits(static_cast<std::uint32_t>(bits));
    const std::uint64_t high = hex_digits(static_cast<std::uint32_t>(bits >> 32));
    std::memcpy(id + half * 16, &low, 8);  // Why memcpy: little-endian stores put the lowest nibble first
    std::memcpy(id + half * 16 + 8, &high, 8);
  }
  out.assign(id, sizeof id);
}

}  // namespace tiffany::http

// Request ids: validation and a fast per-thread generator.
#include "http/request_id.hpp"

#include <sys/random.h>

#include <cstdint>
#include <random>

namespace tiffany::http {
namespace {

constexpr std::size_t kMaxRequestIdLength = 128;

bool is_id_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.' || c == ':' || c == '+' || c == '/' || c == '=' || c == '@';
}

// xoshiro256**: fast and statistically strong; ids need uniqueness, not secrecy.
class IdGenerator {
 public:
  IdGenerator() {
    if (getrandom(state_, sizeof state_, 0) != static_cast<ssize_t>(sizeof state_)) {
      std::random_device device;  // getrandom refused: still seed from the system
      for (std::uint64_t& word : state_) word = (static_cast<std::uint64_t>(device()) << 32) ^ device();
    }
    if ((state_[0] | state_[1] | state_[2] | state_[3]) == 0) state_[0] = 1;  // the one forbidden state
  }
  std::uint64_t next() noexcept {
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
  std::uint64_t state_[4];
};

}  // namespace

bool is_valid_request_id(std::string_view id) noexcept {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (const char c : id) {
    if (!is_id_char(c)) return false;
  }
  return true;
}

void make_request_id(std::string& out) {
  thread_local IdGenerator generator;
  static constexpr char kHex[] = "0123456789abcdef";
  out.resize(32);
  for (int half = 0; half < 2; ++half) {
    std::uint64_t bits = generator.next();
    for (int i = 0; i < 16; ++i, bits >>= 4) out[static_cast<std::size_t>(half * 16 + i)] = kHex[bits & 0xf];
  }
}

}  // namespace tiffany::http

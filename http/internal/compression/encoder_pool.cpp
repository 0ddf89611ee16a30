// EncoderPool: a few spare encoders per coding and thread.
#include "http/internal/compression/encoder_pool.hpp"

#include <array>
#include <vector>

namespace tiffany::http {
namespace {

// Why a cap: a zlib stream holds ~270 KiB and a zstd context ~1 MiB; a
// worker keeps enough for the responses it compresses at once in the usual
// case, and frees the rest.
constexpr std::size_t kKeptPerCoding = 4;

struct Spares {
  std::array<std::vector<std::unique_ptr<Encoder>>, kCodingCount> by_coding;
};

Spares& spares() {
  thread_local Spares pool;
  return pool;
}

std::unique_ptr<Encoder> make_encoder(Coding coding) {
  switch (coding) {
    case Coding::gzip: return make_gzip_encoder();
    case Coding::br: return make_brotli_encoder();
    case Coding::zstd: return make_zstd_encoder();
    case Coding::identity: break;
  }
  return nullptr;
}

}  // namespace

PooledEncoder& PooledEncoder::operator=(PooledEncoder&& other) noexcept {
  if (this != &other) {
    reset();
    coding_ = other.coding_;
    encoder_ = std::move(other.encoder_);
  }
  return *this;
}

PooledEncoder PooledEncoder::acquire(Coding coding, int level, std::uint64_t exact_size) {
  auto& kept = spares().by_coding[static_cast<std::size_t>(coding)];
  std::unique_ptr<Encoder> encoder;
  if (kept.empty()) {
    encoder = make_encoder(coding);
  } else {
    encoder = std::move(kept.back());
    kept.pop_back();
  }
  encoder->start(level, exact_size);  // if this throws, the encoder is simply freed
  return PooledEncoder(coding, std::move(encoder));
}

void PooledEncoder::release() noexcept {
  encoder_->idle();
  auto& kept = spares().by_coding[static_cast<std::size_t>(coding_)];
  if (kept.size() < kKeptPerCoding) {
    try {
      kept.push_back(std::move(encoder_));  // if this cannot grow the vector, encoder_ is left as it was
    } catch (...) {
    }
  }
  encoder_.reset();  // past the cap (or out of memory): freed
}

void encode_whole(Coding coding, int level, std::string_view input, std::string& out) {
  PooledEncoder encoder = PooledEncoder::acquire(coding, level, input.size());
  out.clear();
  encoder->encode(input, true, out);
}

}  // namespace tiffany::http

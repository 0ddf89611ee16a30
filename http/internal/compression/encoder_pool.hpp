// EncoderPool: each worker thread's spare encoders, so a response does not rebuild zlib or zstd state.
#pragma once

#include <cstdint>
#include <memory>

#include "http/engine/compression/coding.hpp"
#include "http/internal/compression/encoder.hpp"

namespace tiffany::http {

/// An encoder borrowed from this thread's pool, started for one stream, and
/// handed back (idle) when destroyed or reset. Move-only; must be destroyed
/// on the thread that acquired it (connections never change worker).
class PooledEncoder {
 public:
  PooledEncoder() = default;
  PooledEncoder(PooledEncoder&& other) noexcept = default;
  PooledEncoder& operator=(PooledEncoder&& other) noexcept;
  PooledEncoder(const PooledEncoder&) = delete;
  PooledEncoder& operator=(const PooledEncoder&) = delete;
  ~PooledEncoder() { reset(); }

  /// A started encoder for `coding` (not identity) at `level`; see Encoder::start.
  static PooledEncoder acquire(Coding coding, int level, std::uint64_t exact_size);

  explicit operator bool() const noexcept { return encoder_ != nullptr; }
  Encoder& operator*() const noexcept { return *encoder_; }
  Encoder* operator->() const noexcept { return encoder_.get(); }
  /// Hands the encoder back to the pool now.
  void reset() noexcept {
    if (encoder_) release();  // Why inline: every response resets one, and most hold none
  }

 private:
  void release() noexcept;
  PooledEncoder(Coding coding, std::unique_ptr<Encoder> encoder) : coding_(coding), encoder_(std::move(encoder)) {}

  Coding coding_ = Coding::identity;
  std::unique_ptr<Encoder> encoder_;
};

/// Compresses all of `input` with `coding` at `level` into `out` (replacing
/// its contents; its capacity is reused). Throws like Encoder.
void encode_whole(Coding coding, int level, std::string_view input, std::string& out);

}  // namespace tiffany::http

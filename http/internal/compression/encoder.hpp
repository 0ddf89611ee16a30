// Encoder: the one interface the gzip, br and zstd compressors implement.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "http/engine/compression/coding.hpp"

namespace tiffany::http {

/// Compresses one stream at a time (a whole body, or a streamed body piece
/// by piece), reusable for the next stream after start(). Throws
/// std::runtime_error if the library fails (out of memory). Not thread-safe.
class Encoder {
 public:
  static constexpr std::uint64_t kUnknownSize = UINT64_MAX;

  virtual ~Encoder() = default;
  /// Begins a new stream at `level` (already validated for this coding).
  /// `exact_size`: the whole input's size when known (kUnknownSize
  /// otherwise); it lets the library size its window and tables.
  virtual void start(int level, std::uint64_t exact_size) = 0;
  /// Compresses `input` and appends the output to `out`. Without `finish`
  /// the output is flushed (a decoder can decode everything given so far);
  /// with it, the stream ends (no more input after that).
  virtual void encode(std::string_view input, bool finish, std::string& out) = 0;
  /// Called when the encoder goes back to its pool: drop large state that
  /// start() would rebuild anyway.
  virtual void idle() noexcept {}
};

std::unique_ptr<Encoder> make_gzip_encoder();
std::unique_ptr<Encoder> make_brotli_encoder();
std::unique_ptr<Encoder> make_zstd_encoder();

}  // namespace tiffany::http

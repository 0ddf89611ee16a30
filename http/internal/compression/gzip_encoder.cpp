// gzip through zlib: deflate with a gzip wrapper, one z_stream reused with deflateReset.
#include <zlib.h>

#include <cstdint>
#include <memory>
#include <stdexcept>

#include "http/internal/compression/encoder.hpp"

namespace tiffany::http {
namespace {

// Why these: zlib's defaults, which nginx's gzip filter also uses for bodies
// of 16 KiB and more, so the same level gives the same bytes.
constexpr int kWindowBits = 15;  // 32 KiB window
constexpr int kMemLevel = 8;
constexpr int kGzipWrapper = 16;  // added to the window bits: gzip header and trailer

// The window and hash sizes for a body of `size` bytes, as nginx's gzip
// filter picks them (same bytes on the wire): halved with the hash while
// the body fits in half the window. Why: a smaller state is cheaper to
// reset (deflateReset clears the whole hash) and to keep in cache.
struct Sizing {
  int window_bits = kWindowBits;
  int mem_level = kMemLevel;
  bool operator==(const Sizing&) const = default;
};
Sizing sizing_for(std::uint64_t size) noexcept {
  Sizing sizing;
  if (size == Encoder::kUnknownSize || size == 0) return sizing;
  // Why 262: zlib keeps that much lookahead (MIN_LOOKAHEAD) out of the window.
  // The bound goes negative at 9 bits, zlib's smallest window for deflate.
  while (sizing.window_bits > 9 && size < (std::uint64_t{1} << (sizing.window_bits - 1)) - 262) {
    --sizing.window_bits;
    --sizing.mem_level;
  }
  if (sizing.mem_level < 1) sizing.mem_level = 1;
  return sizing;
}

class GzipEncoder final : public Encoder {
 public:
  GzipEncoder() = default;
  GzipEncoder(const GzipEncoder&) = delete;
  GzipEncoder& operator=(const GzipEncoder&) = delete;
  ~GzipEncoder() override {
    if (initialised_) deflateEnd(&stream_);
  }

  void start(int level, std::uint64_t exact_size) override {
    const Sizing sizing = sizing_for(exact_size);
    if (initialised_ && level == level_ && sizing == sizing_) {
      deflateReset(&stream_);  // keeps the window and hash tables: no allocation
      return;
    }
    if (initialised_) deflateEnd(&stream_);
    initialised_ = false;
    stream_ = z_stream{};
    if (deflateInit2(&stream_, level, Z_DEFLATED, sizing.window_bits + kGzipWrapper, sizing.mem_level,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      throw std::runtime_error("gzip: deflateInit2 failed");
    }
    initialised_ = true;
    level_ = level;
    sizing_ = sizing;
  }

  void encode(std::string_view input, bool finish, std::string& out) override {
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
    stream_.avail_in = static_cast<uInt>(input.size());
    const int flush = finish ? Z_FINISH : Z_SYNC_FLUSH;
    // Why deflateBound: for a whole body it is enough for one call, so the
    // output is appended once; 16 more bytes cover a sync flush's marker.
    // Why a scratch buffer: growing `out` first would zero-fill the whole
    // bound (64 KiB for a 64 KiB page) to keep a few KiB.
    reserve_scratch(deflateBound(&stream_, static_cast<uLong>(input.size())) + 16);
    for (;;) {
      stream_.next_out = scratch_.get();
      stream_.avail_out = static_cast<uInt>(scratch_size_);
      const int result = deflate(&stream_, flush);
      out.append(reinterpret_cast<const char*>(scratch_.get()), scratch_size_ - stream_.avail_out);
      if (result == Z_STREAM_ERROR) throw std::runtime_error("gzip: deflate failed");
      if (finish ? result == Z_STREAM_END : (stream_.avail_out != 0 && stream_.avail_in == 0)) return;
    }
  }

  void idle() noexcept override {
    if (scratch_size_ > kKeptScratch) {
      scratch_.reset();
      scratch_size_ = 0;
    }
  }

 private:
  static constexpr std::size_t kKeptScratch = 128 * 1024;

  void reserve_scratch(std::size_t size) {
    if (size <= scratch_size_) return;
    scratch_ = std::make_unique_for_overwrite<Bytef[]>(size);
    scratch_size_ = size;
  }

  z_stream stream_{};
  std::unique_ptr<Bytef[]> scratch_;
  std::size_t scratch_size_ = 0;
  bool initialised_ = false;
  int level_ = -1;
  Sizing sizing_;
};

}  // namespace

std::unique_ptr<Encoder> make_gzip_encoder() { return std::make_unique<GzipEncoder>(); }

}  // namespace tiffany::http

// zstd through libzstd: one ZSTD_CCtx reused across streams (reset per stream).
#include <zstd.h>

#include <stdexcept>
#include <string>

#include "http/internal/compression/encoder.hpp"

namespace tiffany::http {
namespace {

void check(std::size_t result, const char* what) {
  if (ZSTD_isError(result)) throw std::runtime_error(std::string("zstd: ") + what + ": " + ZSTD_getErrorName(result));
}

class ZstdEncoder final : public Encoder {
 public:
  ZstdEncoder() : context_(ZSTD_createCCtx()) {
    if (context_ == nullptr) throw std::runtime_error("zstd: cannot create a context");
  }
  ZstdEncoder(const ZstdEncoder&) = delete;
  ZstdEncoder& operator=(const ZstdEncoder&) = delete;
  ~ZstdEncoder() override { ZSTD_freeCCtx(context_); }

  void start(int level, std::uint64_t exact_size) override {
    check(ZSTD_CCtx_reset(context_, ZSTD_reset_session_and_parameters), "reset");
    check(ZSTD_CCtx_setParameter(context_, ZSTD_c_compressionLevel, level), "level");
    // Why: the frame then records the size, and small bodies get small tables.
    if (exact_size != kUnknownSize) check(ZSTD_CCtx_setPledgedSrcSize(context_, exact_size), "size");
  }

  void encode(std::string_view input, bool finish, std::string& out) override {
    ZSTD_inBuffer in{input.data(), input.size(), 0};
    std::size_t room = ZSTD_compressBound(input.size()) + 32;
    for (;;) {
      const std::size_t used = out.size();
      out.resize(used + room);
      ZSTD_outBuffer buffer{out.data() + used, room, 0};
      const std::size_t left = ZSTD_compressStream2(context_, &buffer, &in, finish ? ZSTD_e_end : ZSTD_e_flush);
      out.resize(used + buffer.pos);
      check(left, "compress");
      if (left == 0 && in.pos == in.size) return;
      room = ZSTD_CStreamOutSize();
    }
  }

 private:
  ZSTD_CCtx* context_;
};

}  // namespace

std::unique_ptr<Encoder> make_zstd_encoder() { return std::make_unique<ZstdEncoder>(); }

}  // namespace tiffany::http

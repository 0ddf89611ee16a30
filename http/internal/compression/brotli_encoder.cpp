// br through libbrotli: one BrotliEncoderState per stream (it cannot be reset).
#include <brotli/encode.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "http/internal/compression/encoder.hpp"

namespace tiffany::http {
namespace {

class BrotliEncoder final : public Encoder {
 public:
  BrotliEncoder() = default;
  BrotliEncoder(const BrotliEncoder&) = delete;
  BrotliEncoder& operator=(const BrotliEncoder&) = delete;
  ~BrotliEncoder() override { idle(); }

  void start(int level, std::uint64_t exact_size) override {
    idle();
    state_ = BrotliEncoderCreateInstance(nullptr, nullptr, nullptr);
    if (state_ == nullptr) throw std::runtime_error("br: cannot create an encoder");
    BrotliEncoderSetParameter(state_, BROTLI_PARAM_QUALITY, static_cast<std::uint32_t>(level));
    if (exact_size != kUnknownSize) {
      // Why: a window no larger than the body (at least 1 KiB) costs the
      // decoder and us less memory and compresses the same.
      const int bits = std::clamp(static_cast<int>(std::bit_width(exact_size)), BROTLI_MIN_WINDOW_BITS,
                                  BROTLI_DEFAULT_WINDOW);
      BrotliEncoderSetParameter(state_, BROTLI_PARAM_LGWIN, static_cast<std::uint32_t>(bits));
      BrotliEncoderSetParameter(state_, BROTLI_PARAM_SIZE_HINT,
                                static_cast<std::uint32_t>(std::min<std::uint64_t>(exact_size, 1u << 30)));
    }
  }

  void encode(std::string_view input, bool finish, std::string& out) override {
    const auto* next_in = reinterpret_cast<const std::uint8_t*>(input.data());
    std::size_t available_in = input.size();
    const BrotliEncoderOperation operation = finish ? BROTLI_OPERATION_FINISH : BROTLI_OPERATION_FLUSH;
    std::size_t room = BrotliEncoderMaxCompressedSize(input.size());
    if (room == 0) room = input.size() + 1024;  // the bound overflowed, or an empty flush
    for (;;) {
      const std::size_t used = out.size();
      out.resize(used + room);
      auto* next_out = reinterpret_cast<std::uint8_t*>(out.data() + used);
      std::size_t available_out = room;
      const BROTLI_BOOL ok =
          BrotliEncoderCompressStream(state_, operation, &available_in, &next_in, &available_out, &next_out, nullptr);
      out.resize(used + room - available_out);
      if (!ok) throw std::runtime_error("br: compression failed");
      const bool done = available_in == 0 && !BrotliEncoderHasMoreOutput(state_) &&
                        (!finish || BrotliEncoderIsFinished(state_));
      if (done) return;
      room = 16 * 1024;
    }
  }

  void idle() noexcept override {
    if (state_ != nullptr) BrotliEncoderDestroyInstance(state_);
    state_ = nullptr;
  }

 private:
  BrotliEncoderState* state_ = nullptr;
};

}  // namespace

std::unique_ptr<Encoder> make_brotli_encoder() { return std::make_unique<BrotliEncoder>(); }

}  // namespace tiffany::http

// decode_content: zlib's inflate, BrotliDecoderDecompressStream and ZSTD_decompressStream.
#include "support/decode_content.hpp"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <memory>

namespace tiffany::testing {
namespace {

std::optional<std::string> gunzip(std::string_view encoded, bool whole) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) return std::nullopt;
  std::string out;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(encoded.data()));
  stream.avail_in = static_cast<uInt>(encoded.size());
  int result = Z_OK;
  char buffer[16384];
  do {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    result = inflate(&stream, Z_SYNC_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
  } while (result == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0));
  const bool ended = result == Z_STREAM_END && stream.avail_in == 0;
  inflateEnd(&stream);
  if (whole ? !ended : (result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR)) return std::nullopt;
  return out;
}

std::optional<std::string> unbrotli(std::string_view encoded, bool whole) {
  std::unique_ptr<BrotliDecoderState, decltype(&BrotliDecoderDestroyInstance)> state(
      BrotliDecoderCreateInstance(nullptr, nullptr, nullptr), &BrotliDecoderDestroyInstance);
  const auto* next_in = reinterpret_cast<const std::uint8_t*>(encoded.data());
  std::size_t available_in = encoded.size();
  std::string out;
  BrotliDecoderResult result;
  // Why a large buffer: libbrotli 1.0.9's decoder, resumed after filling a
  // small buffer with no input left, may keep the rest of a flushed
  // meta-block until more input comes; a browser reads on as more arrives.
  std::string buffer(4 << 20, '\0');
  do {
    auto* next_out = reinterpret_cast<std::uint8_t*>(buffer.data());
    std::size_t available_out = buffer.size();
    result = BrotliDecoderDecompressStream(state.get(), &available_in, &next_in, &available_out, &next_out, nullptr);
    out.append(buffer.data(), buffer.size() - available_out);
  } while (result == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT);
  if (result == BROTLI_DECODER_RESULT_ERROR) return std::nullopt;
  if (whole && (result != BROTLI_DECODER_RESULT_SUCCESS || available_in != 0)) return std::nullopt;
  return out;
}

std::optional<std::string> unzstd(std::string_view encoded, bool whole) {
  std::unique_ptr<ZSTD_DStream, decltype(&ZSTD_freeDStream)> stream(ZSTD_createDStream(), &ZSTD_freeDStream);
  ZSTD_inBuffer in{encoded.data(), encoded.size(), 0};
  std::string out;
  std::size_t left = 1;
  while (in.pos < in.size || left != 0) {
    char buffer[16384];
    ZSTD_outBuffer buffer_out{buffer, sizeof buffer, 0};
    left = ZSTD_decompressStream(stream.get(), &buffer_out, &in);
    if (ZSTD_isError(left)) return std::nullopt;
    out.append(buffer, buffer_out.pos);
    if (in.pos == in.size && buffer_out.pos < buffer_out.size) break;  // all given input decoded
  }
  if (whole && left != 0) return std::nullopt;  // the frame did not end
  return out;
}

std::optional<std::string> decode(std::string_view coding, std::string_view encoded, bool whole) {
  if (coding == "gzip") return gunzip(encoded, whole);
  if (coding == "br") return unbrotli(encoded, whole);
  if (coding == "zstd") return unzstd(encoded, whole);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> decode_content(std::string_view coding, std::string_view encoded) {
  return decode(coding, encoded, true);
}

std::string encode_content(std::string_view coding, std::string_view text) {
  std::string out;
  if (coding == "gzip") {
    z_stream stream{};
    deflateInit2(&stream, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    out.resize(deflateBound(&stream, static_cast<uLong>(text.size())));
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    stream.avail_in = static_cast<uInt>(text.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    deflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
  } else if (coding == "br") {
    std::size_t size = BrotliEncoderMaxCompressedSize(text.size()) + 1024;
    out.resize(size);
    BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, text.size(),
                          reinterpret_cast<const std::uint8_t*>(text.data()), &size,
                          reinterpret_cast<std::uint8_t*>(out.data()));
    out.resize(size);
  } else if (coding == "zstd") {
    out.resize(ZSTD_compressBound(text.size()));
    out.resize(ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 19));
  }
  return out;
}

std::optional<std::string> decode_prefix(std::string_view coding, std::string_view encoded) {
  return decode(coding, encoded, false);
}

}  // namespace tiffany::testing

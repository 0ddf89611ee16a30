// MessageDeflater and MessageInflater: zlib's raw deflate per message, with or without context takeover.
#include "http/engine/websocket/message_deflate.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <new>

namespace tiffany::http::websocket {
namespace {

constexpr std::array<unsigned char, 4> kFlushTail{0x00, 0x00, 0xff, 0xff};
constexpr std::size_t kStep = 16 * 1024;  // output grows by this much at a time

unsigned char* bytes_of(std::string_view text) {
  // Why the cast: zlib's next_in is not const, but it never writes through it.
  return reinterpret_cast<unsigned char*>(const_cast<char*>(text.data()));
}

}  // namespace

MessageDeflater::MessageDeflater(int window_bits, int level, bool keep_context) : keep_context_(keep_context) {
  // Why memLevel 8: zlib's default; the state is about 2^(window+2) + 128 KiB.
  if (deflateInit2(&stream_, level, Z_DEFLATED, -window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::bad_alloc();
}

MessageDeflater::~MessageDeflater() { deflateEnd(&stream_); }

void MessageDeflater::compress(std::string_view message, std::string& out) {
  out.clear();
  stream_.next_in = bytes_of(message);
  stream_.avail_in = static_cast<uInt>(message.size());
  std::size_t used = 0;
  // Why loop while the output fills: Z_SYNC_FLUSH is done once it leaves room to spare.
  do {
    out.resize(used + std::max<std::size_t>(kStep, message.size() / 2 + 64));
    stream_.next_out = reinterpret_cast<unsigned char*>(out.data() + used);
    stream_.avail_out = static_cast<uInt>(out.size() - used);
    deflate(&stream_, Z_SYNC_FLUSH);
    used = out.size() - stream_.avail_out;
  } while (stream_.avail_out == 0);
  out.resize(used);
  if (out.size() >= kFlushTail.size() && std::equal(kFlushTail.begin(), kFlushTail.end(), out.end() - 4,
                                                     [](unsigned char a, char b) { return a == static_cast<unsigned char>(b); })) {
    out.resize(out.size() - 4);
  }
  // Why: with nothing new to flush, zlib writes nothing; an empty message is
  // one empty stored block, 0x00 once its tail is cut (§7.2.3.6).
  if (out.empty()) out.push_back('\0');
  if (!keep_context_) deflateReset(&stream_);
}

MessageDeflater& MessageDeflater::shared(int window_bits, int level) {
  // One per window size and level in use on this thread (in practice one or two).
  thread_local std::array<std::array<std::unique_ptr<MessageDeflater>, 10>, 16> deflaters;
  std::unique_ptr<MessageDeflater>& slot = deflaters.at(static_cast<std::size_t>(window_bits)).at(static_cast<std::size_t>(level));
  if (!slot) slot = std::make_unique<MessageDeflater>(window_bits, level, false);
  return *slot;
}

MessageInflater::MessageInflater(int window_bits, bool keep_context) : keep_context_(keep_context) {
  if (inflateInit2(&stream_, -window_bits) != Z_OK) throw std::bad_alloc();
}

MessageInflater::~MessageInflater() { inflateEnd(&stream_); }

MessageInflater::Result MessageInflater::inflate(std::string_view payload, std::size_t max_bytes, std::string& out) {
  out.clear();
  Result result = Result::ok;
  bool ended = false;  // a block with BFINAL set ended the stream (§7.2.3.4 allows it)
  std::size_t used = 0;
  // The payload, then the tail the sender removed.
  for (const std::string_view input : {payload, std::string_view(reinterpret_cast<const char*>(kFlushTail.data()), 4)}) {
    stream_.next_in = bytes_of(input);
    stream_.avail_in = static_cast<uInt>(input.size());
    while (result == Result::ok && !ended && stream_.avail_in > 0) {
      if (used == out.size()) {
        if (used > max_bytes) {  // one byte past the limit proves it is over
          result = Result::too_big;
          break;
        }
        out.resize(std::min(used + kStep, max_bytes + 1));
      }
      stream_.next_out = reinterpret_cast<unsigned char*>(out.data() + used);
      stream_.avail_out = static_cast<uInt>(out.size() - used);
      const int status = ::inflate(&stream_, Z_SYNC_FLUSH);
      used = out.size() - stream_.avail_out;
      if (status == Z_STREAM_END) {
        ended = true;
      } else if (status == Z_BUF_ERROR) {
        if (stream_.avail_out > 0) break;  // no progress possible: this input is used up
      } else if (status != Z_OK) {
        result = Result::corrupt;
      }
    }
  }
  if (result == Result::ok && used > max_bytes) result = Result::too_big;
  out.resize(std::min(used, max_bytes));
  // Why reset after a final block too: the stream is over; the sender starts its next message afresh.
  if (!keep_context_ || ended || result != Result::ok) inflateReset(&stream_);
  return result;
}

MessageInflater& MessageInflater::shared() {
  thread_local MessageInflater inflater(15, false);
  return inflater;
}

}  // namespace tiffany::http::websocket

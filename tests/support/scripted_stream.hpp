// ScriptedStream: a ByteStream test double that hands out scripted reads (then EOF) and records writes (gathered too).
#pragma once

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include <tiffany/net/byte_stream.hpp>

namespace tiffany::testing {

class ScriptedStream final : public ByteStream {
 public:
  explicit ScriptedStream(std::vector<std::string> reads) : reads_(reads.begin(), reads.end()) {}
  Task<IoResult> read(char* data, std::size_t size) override {
    if (reads_.empty()) co_return IoResult{0};
    std::string& next = reads_.front();
    const std::size_t n = std::min(size, next.size());
    next.copy(data, n);
    next.erase(0, n);
    if (next.empty()) reads_.pop_front();
    co_return IoResult{static_cast<int>(n)};
  }
  Task<IoResult> write(const char* data, std::size_t size) override {
    writes.emplace_back(data, size);
    co_return IoResult{static_cast<int>(size)};
  }
  /// With `gathers` set, like a socket: a gathered write is one write,
  /// recorded whole, and gathered_pieces says into how many pieces it came.
  bool gathers_writes() const noexcept override { return gathers; }
  Task<IoResult> write_gather(std::span<iovec> pieces) override {
    if (!gathers) co_return co_await ByteStream::write_gather(pieces);
    std::string all;
    for (const iovec& piece : pieces) all.append(static_cast<const char*>(piece.iov_base), piece.iov_len);
    writes.push_back(std::move(all));
    gathered_pieces.push_back(pieces.size());
    co_return IoResult{0};
  }
  void finish() noexcept override { finished = true; }

  /// Everything written, in order.
  std::string written() const {
    std::string all;
    for (const std::string& write : writes) all += write;
    return all;
  }

  std::vector<std::string> writes;
  std::vector<std::size_t> gathered_pieces;  // per gathered write, when `gathers`
  bool gathers = false;
  bool finished = false;

 private:
  std::deque<std::string> reads_;
};

}  // namespace tiffany::testing

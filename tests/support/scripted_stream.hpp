// ScriptedStream: a ByteStream test double that hands out scripted reads (then EOF) and records writes.
#pragma once

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "server/transport/byte_stream.hpp"

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
  void finish() noexcept override { finished = true; }

  /// Everything written, in order.
  std::string written() const {
    std::string all;
    for (const std::string& write : writes) all += write;
    return all;
  }

  std::vector<std::string> writes;
  bool finished = false;

 private:
  std::deque<std::string> reads_;
};

}  // namespace tiffany::testing

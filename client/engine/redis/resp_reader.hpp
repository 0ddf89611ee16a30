// RespReader: Redis replies (RESP2) out of a byte stream, one whole reply at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tiffany::redis {

/// One reply: a simple string (+OK), an error (-ERR ...), an integer, a bulk
/// string, an array of replies, or null ($-1 or *-1).
struct RespValue {
  enum class Type : std::uint8_t { simple_string, error, integer, bulk_string, array, null };
  Type type = Type::null;
  std::string text;  // simple string, error, bulk string
  std::int64_t integer = 0;
  std::vector<RespValue> elements;  // array

  bool is_array_of(std::size_t count) const noexcept { return type == Type::array && elements.size() == count; }
  /// True for a bulk or simple string equal to `word`.
  bool is_string(std::string_view word) const noexcept {
    return (type == Type::bulk_string || type == Type::simple_string) && text == word;
  }
};

/// What a reader refuses: replies no server of ours should send, and sizes
/// that would let one make us hold without bound.
struct RespLimits {
  std::size_t max_bulk_bytes = 64 * 1024 * 1024;
  std::size_t max_elements = 1024 * 1024;  // in one array
  std::size_t max_depth = 8;               // arrays inside arrays
  std::size_t max_line_bytes = 64 * 1024;  // a simple string, an error, a length line
};

/// An incremental parser of a server's replies. Feed it bytes as they
/// arrive; take each whole reply with next(). A reply that breaks the
/// protocol (an unknown type byte, a bad length, a missing CR LF) or a limit
/// ends the stream: next() says error from then on, and why() says what.
/// Not thread-safe; one per connection.
class RespReader {
 public:
  enum class Status : std::uint8_t { value, need_more, error };

  explicit RespReader(RespLimits limits = {}) : limits_(limits) {}

  void feed(std::string_view bytes);
  /// The next whole reply in `out` (value), or need_more, or error.
  Status next(RespValue& out);
  const std::string& why() const noexcept { return why_; }
  /// Bytes held that no whole reply used yet.
  std::size_t buffered() const noexcept { return buffer_.size() - at_; }

 private:
  enum class Parse : std::uint8_t { done, incomplete, bad };
  Parse parse(std::size_t& at, std::size_t depth, RespValue& out);
  Parse line(std::size_t& at, std::string_view& text);
  Parse length(std::size_t& at, std::int64_t& value);
  Parse bad(std::string why);

  RespLimits limits_;
  std::string buffer_;
  std::size_t at_ = 0;  // where the next reply starts
  std::string why_;
};

}  // namespace tiffany::redis

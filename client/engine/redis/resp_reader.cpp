// RespReader: the RESP2 grammar, parsed from the start of a reply until it is whole.
#include "client/engine/redis/resp_reader.hpp"

#include <charconv>
#include <utility>

namespace tiffany::redis {

void RespReader::feed(std::string_view bytes) {
  if (!why_.empty()) return;
  // Why compact here: the used front is dropped once it is most of the buffer, so a long-lived connection's buffer stays small.
  if (at_ > 0 && at_ * 2 >= buffer_.size()) {
    buffer_.erase(0, at_);
    at_ = 0;
  }
  buffer_.append(bytes);
}

RespReader::Status RespReader::next(RespValue& out) {
  if (!why_.empty()) return Status::error;
  std::size_t at = at_;
  RespValue value;
  // Why parse from the reply's start each time: replies are small; a partial one is parsed again when more arrives.
  switch (parse(at, 0, value)) {
    case Parse::done:
      at_ = at;
      out = std::move(value);
      return Status::value;
    case Parse::incomplete:
      return Status::need_more;
    case Parse::bad:
      return Status::error;
  }
  return Status::error;
}

RespReader::Parse RespReader::bad(std::string why) {
  why_ = std::move(why);
  return Parse::bad;
}

RespReader::Parse RespReader::line(std::size_t& at, std::string_view& text) {
  const std::size_t end = buffer_.find("\r\n", at);
  if (end == std::string::npos) {
    // Why + 1: a line of the longest length may have its CR here and its LF still on the way.
    if (buffer_.size() - at > limits_.max_line_bytes + 1) return bad("a line longer than the limit");
    return Parse::incomplete;
  }
  if (end - at > limits_.max_line_bytes) return bad("a line longer than the limit");
  text = std::string_view(buffer_).substr(at, end - at);
  if (text.find('\r') != std::string_view::npos || text.find('\n') != std::string_view::npos) {
    return bad("a bare CR or LF in a line");
  }
  at = end + 2;
  return Parse::done;
}

RespReader::Parse RespReader::length(std::size_t& at, std::int64_t& value) {
  std::string_view text;
  const Parse got = line(at, text);
  if (got != Parse::done) return got;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(begin, end, value);
  if (text.empty() || error != std::errc() || stop != end || (text.size() > 1 && text[0] == '+')) {
    return bad("a number that is not one");
  }
  return Parse::done;
}

RespReader::Parse RespReader::parse(std::size_t& at, std::size_t depth, RespValue& out) {
  if (at >= buffer_.size()) return Parse::incomplete;
  const char type = buffer_[at++];
  switch (type) {
    case '+':
    case '-': {
      std::string_view text;
      const Parse got = line(at, text);
      if (got != Parse::done) return got;
      out.type = type == '+' ? RespValue::Type::simple_string : RespValue::Type::error;
      out.text.assign(text);
      return Parse::done;
    }
    case ':': {
      const Parse got = length(at, out.integer);
      if (got == Parse::done) out.type = RespValue::Type::integer;
      return got;
    }
    case '$': {
      std::int64_t size = 0;
      const Parse got = length(at, size);
      if (got != Parse::done) return got;
      if (size == -1) {
        out.type = RespValue::Type::null;
        return Parse::done;
      }
      if (size < 0) return bad("a negative bulk length");
      if (static_cast<std::uint64_t>(size) > limits_.max_bulk_bytes) return bad("a bulk string longer than the limit");
      const auto bytes = static_cast<std::size_t>(size);
      if (buffer_.size() - at < bytes + 2) return Parse::incomplete;
      if (buffer_.compare(at + bytes, 2, "\r\n") != 0) return bad("a bulk string without its CR LF");
      out.type = RespValue::Type::bulk_string;
      out.text.assign(buffer_, at, bytes);
      at += bytes + 2;
      return Parse::done;
    }
    case '*': {
      std::int64_t count = 0;
      const Parse got = length(at, count);
      if (got != Parse::done) return got;
      if (count == -1) {
        out.type = RespValue::Type::null;
        return Parse::done;
      }
      if (count < 0) return bad("a negative array length");
      if (static_cast<std::uint64_t>(count) > limits_.max_elements) return bad("an array longer than the limit");
      if (depth + 1 > limits_.max_depth) return bad("arrays nested deeper than the limit");
      out.type = RespValue::Type::array;
      out.elements.clear();
      // Why not reserve(count): a count alone must not make us allocate; elements are paid for as they arrive.
      for (std::int64_t i = 0; i < count; ++i) {
        RespValue element;
        const Parse element_got = parse(at, depth + 1, element);
        if (element_got != Parse::done) return element_got;
        out.elements.push_back(std::move(element));
      }
      return Parse::done;
    }
    default:
      return bad("an unknown reply type byte");
  }
}

}  // namespace tiffany::redis

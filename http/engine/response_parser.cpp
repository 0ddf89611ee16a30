// ResponseParser: llhttp (response mode) callbacks → response events, with
// the client's framing rules (RFC 9112 §6.3) and limits.
#include "http/engine/response_parser.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace tiffany::http {
namespace {

ResponseParser& self(llhttp_t* parser) { return *static_cast<ResponseParser*>(parser->data); }

// The byte of a span starting at `at` that took a count from `before` past `limit`.
const char* crossing_byte(const char* at, std::size_t before, std::size_t limit) {
  return at + (limit > before ? limit - before : 0);
}

// Each coding named by the Transfer-Encoding fields, in order (a list may span fields).
template <class Visit>
void for_each_coding(const Headers& headers, Visit visit) {
  for (const Headers::Field& field : headers) {
    if (!iequals(field.name, "transfer-encoding")) continue;
    std::string_view rest = field.value;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string_view item = trim_ows(rest.substr(0, comma));
      // A coding may carry parameters ("gzip;q=1" is not valid here, but be exact about the name).
      visit(trim_ows(item.substr(0, item.find(';'))));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
}

}  // namespace

ResponseParser::ResponseParser(const ResponseLimits& limits) : limits_(limits) {
  llhttp_settings_init(&settings_);
  settings_.on_message_begin = on_message_begin;
  settings_.on_status = on_status;
  settings_.on_header_field = on_header_field;
  settings_.on_header_value = on_header_value;
  settings_.on_header_value_complete = on_header_value_complete;
  settings_.on_chunk_extension_name = on_chunk_extension;
  settings_.on_chunk_extension_value = on_chunk_extension;
  settings_.on_chunk_header = on_chunk_header;
  settings_.on_chunk_complete = on_chunk_complete;
  settings_.on_headers_complete = on_headers_complete;
  settings_.on_body = on_body;
  settings_.on_message_complete = on_message_complete;
  // Strict: tiffany_llhttp is built with LLHTTP_STRICT_MODE and no lenient flag is set.
  llhttp_init(&parser_, HTTP_RESPONSE, &settings_);
  parser_.data = this;
}

int ResponseParser::fail(ErrorKind kind, std::string message) {
  if (error_kind_ == ErrorKind::none) {
    error_kind_ = kind;
    error_message_ = std::move(message);
  }
  state_ = State::failed;
  return -1;  // llhttp reports HPE_USER (or the callback's error) and stops
}

int ResponseParser::head_too_large(const char* crossing, const char* message) {
  limit_crossed_at_ = crossing;
  return fail(ErrorKind::too_large, message);
}

ResponseParser::Result ResponseParser::failed(std::size_t consumed) {
  state_ = State::failed;
  return {Event::error, consumed, {}};
}

int ResponseParser::on_message_begin(llhttp_t* parser) {
  ResponseParser& p = self(parser);
  p.head_.reason.clear();
  p.head_.headers.clear();
  p.head_.framing = BodyFraming::none;
  p.head_.content_length = 0;
  p.trailers_.clear();
  // Why 13: "HTTP/1.1 200 " before the reason. Counted here, not with the
  // reason's first piece: a read may end there and hand over an empty piece.
  p.header_bytes_ = 13;
  p.trailer_bytes_ = 0;
  p.extension_bytes_ = 0;
  p.last_was_value_ = false;
  p.headers_done_ = false;
  p.transfer_encoding_seen_ = false;
  p.interim_ = false;
  p.state_ = State::in_head;
  return 0;
}

int ResponseParser::on_status(llhttp_t* parser, const char* at, std::size_t length) {
  ResponseParser& p = self(parser);
  const std::size_t before = p.header_bytes_;
  p.header_bytes_ += length;
  if (p.header_bytes_ > p.limits_.max_header_bytes) {
    return p.head_too_large(crossing_byte(at, before, p.limits_.max_header_bytes), "status line too long");
  }
  p.head_.reason.append(at, length);
  return 0;
}

int ResponseParser::on_header_field(llhttp_t* parser, const char* at, std::size_t length) {
  ResponseParser& p = self(parser);
  Headers& fields = p.headers_done_ ? p.trailers_ : p.head_.headers;
  const bool new_field = fields.empty() || p.last_was_value_;
  // Why +4: ": " and CRLF, counted once per field, not per piece of its name.
  const std::size_t added = length + (new_field ? 4 : 0);
  if (p.headers_done_) {
    p.trailer_bytes_ += added;
    if (p.trailer_bytes_ > p.limits_.max_trailer_bytes)
      return p.fail(ErrorKind::too_large, "trailer section too large");
    if (new_field && fields.size() >= p.limits_.max_trailer_count) {
      return p.fail(ErrorKind::too_large, "too many trailer fields");
    }
  } else {
    // The ": " and CRLF are counted before the name's first byte.
    const std::size_t before = p.header_bytes_ + (added - length);
    p.header_bytes_ += added;
    if (p.header_bytes_ > p.limits_.max_header_bytes) {
      return p.head_too_large(crossing_byte(at, before, p.limits_.max_header_bytes), "header section too large");
    }
    if (new_field && fields.size() >= p.limits_.max_header_count) {
      return p.head_too_large(at, "too many header fields");
    }
  }
  if (new_field) fields.start_field();
  fields.last().name.append(at, length);
  p.last_was_value_ = false;
  return 0;
}

int ResponseParser::on_header_value(llhttp_t* parser, const char* at, std::size_t length) {
  ResponseParser& p = self(parser);
  if (p.headers_done_) {
    p.trailer_bytes_ += length;
    if (p.trailer_bytes_ > p.limits_.max_trailer_bytes)
      return p.fail(ErrorKind::too_large, "trailer section too large");
    p.trailers_.last().value.append(at, length);
  } else {
    const std::size_t before = p.header_bytes_;
    p.header_bytes_ += length;
    if (p.header_bytes_ > p.limits_.max_header_bytes) {
      return p.head_too_large(crossing_byte(at, before, p.limits_.max_header_bytes), "header section too large");
    }
    p.head_.headers.last().value.append(at, length);
  }
  p.last_was_value_ = true;
  return 0;
}

int ResponseParser::on_header_value_complete(llhttp_t* parser) {
  ResponseParser& p = self(parser);
  Headers::Field& field = (p.headers_done_ ? p.trailers_ : p.head_.headers).last();
  // RFC 9112 §5.1: whitespace after the value is not part of it (llhttp drops only the leading).
  std::string& value = field.value;
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
  if (field.name.empty()) return p.fail(ErrorKind::malformed, "empty field name");
  if (!p.headers_done_ && iequals(field.name, "transfer-encoding")) p.transfer_encoding_seen_ = true;
  return 0;
}

int ResponseParser::on_chunk_extension(llhttp_t* parser, const char* /*at*/, std::size_t length) {
  ResponseParser& p = self(parser);
  // Why a limit: extensions are read and dropped, so without one a server
  // could keep a client parsing one endless chunk-size line.
  p.extension_bytes_ += length;
  if (p.extension_bytes_ > p.limits_.max_chunk_extension_bytes) {
    return p.fail(ErrorKind::too_large, "chunk extensions too large");
  }
  return 0;
}

int ResponseParser::on_chunk_header(llhttp_t* parser) {
  ResponseParser& p = self(parser);
  p.extension_bytes_ = 0;
  // Why 2^63: no body is that large; a size near 2^64 is an attempt to wrap
  // someone's arithmetic (the server's request parser draws the same line).
  if (parser->content_length >= (std::uint64_t{1} << 63))
    return p.fail(ErrorKind::bad_chunk, "chunk size out of range");
  return 0;
}

int ResponseParser::on_chunk_complete(llhttp_t* parser) {
  self(parser).extension_bytes_ = 0;
  return 0;
}

int ResponseParser::check_head() {
  ResponseHead& head = head_;
  head.version_major = parser_.http_major;
  head.version_minor = parser_.http_minor;
  head.status = parser_.status_code;
  if (head.version_major != 1) return fail(ErrorKind::unexpected_status, "only HTTP/1.x responses are understood");
  // RFC 9110 §15: a status code is three digits from 100 to 599.
  if (head.status < 100 || head.status > 599) return fail(ErrorKind::malformed, "status code out of range");

  const bool has_te = (parser_.flags & F_TRANSFER_ENCODING) != 0;
  const bool has_cl = (parser_.flags & F_CONTENT_LENGTH) != 0;
  // Framing first (RFC 9112 §6): whatever the status, a message whose length
  // is in doubt is refused, never guessed, even where the body is skipped.
  if (transfer_encoding_seen_) {
    // RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
    if (head.version_minor == 0) return fail(ErrorKind::framing, "Transfer-Encoding in an HTTP/1.0 response");
    if (!has_te) return fail(ErrorKind::framing, "empty Transfer-Encoding");
    if (has_cl) return fail(ErrorKind::framing, "Content-Length with Transfer-Encoding");
    // Why refuse "chunked, identity" although RFC 9112 §6.3 would read it
    // to EOF: chunked not last (or twice) is the classic smuggling shape;
    // another hop may well frame it as chunked.
    unsigned chunked = 0;
    bool empty = false;
    for_each_coding(head.headers, [&](std::string_view coding) {
      if (coding.empty()) empty = true;
      if (iequals(coding, "chunked")) ++chunked;
    });
    if (empty) return fail(ErrorKind::framing, "empty transfer coding");
    if (chunked > 1 || (chunked == 1 && (parser_.flags & F_CHUNKED) == 0)) {
      return fail(ErrorKind::framing, "chunked is not the last transfer coding");
    }
  }

  const bool informational = head.status < 200;
  if (head.status == 101) {
    if (!expected_.upgrade)
      return fail(ErrorKind::unexpected_status, "101 Switching Protocols without an upgrade asked");
    upgraded_ = true;
  } else if (informational) {
    interim_ = true;
    if (++interim_count_ > limits_.max_interim_responses) return fail(ErrorKind::too_large, "too many 1xx responses");
  }

  // RFC 9112 §6.3 rules 1 and 2 in the client's terms: the response to HEAD,
  // 1xx, 204 and 304 end at their head whatever fields they carry.
  if (expected_.head_request || informational || head.status == 204 || head.status == 304) {
    parser_.flags |= F_SKIPBODY;
    head.framing = BodyFraming::none;
  } else if ((parser_.flags & F_CHUNKED) != 0) {
    head.framing = BodyFraming::chunked;
  } else if (has_te) {
    head.framing = BodyFraming::until_eof;  // a final coding other than chunked: §6.3 rule 4
  } else if (has_cl) {
    head.content_length = parser_.content_length;
    head.framing = head.content_length == 0 ? BodyFraming::none : BodyFraming::content_length;
  } else {
    head.framing = BodyFraming::until_eof;  // §6.3 rule 8
  }
  return 0;
}

int ResponseParser::on_headers_complete(llhttp_t* parser) {
  ResponseParser& p = self(parser);
  p.headers_done_ = true;
  if (p.check_head() != 0) return -1;
  // Why `between` after a 1xx: the next bytes are the final response's head,
  // which feed() must scan like any head.
  p.state_ = p.interim_ ? State::between : State::in_body;
  p.pending_ = p.interim_ ? Event::interim : Event::headers;
  // Why pause rather than return 1 for a skipped body: pausing hands the
  // head to the caller first; F_SKIPBODY (set above) makes llhttp skip it on resume.
  return HPE_PAUSED;
}

int ResponseParser::on_body(llhttp_t* parser, const char* at, std::size_t length) {
  ResponseParser& p = self(parser);
  // Why: llhttp closes an open span at the end of each input, even an empty one.
  if (length == 0) return 0;
  p.body_ = std::string_view(at, length);
  p.pending_ = Event::body;
  return HPE_PAUSED;
}

int ResponseParser::on_message_complete(llhttp_t* parser) {
  ResponseParser& p = self(parser);
  if (p.interim_) {
    // The final response follows on the same stream; its head is parsed
    // anew (on_message_begin), and an interim head's limits start over.
    p.state_ = State::between;
    return 0;
  }
  p.keep_alive_ = !p.upgraded_ && llhttp_should_keep_alive(parser) != 0;
  p.state_ = State::done;
  p.pending_ = Event::complete;
  return HPE_PAUSED;
}

const char* ResponseParser::scan_head_bytes(std::string_view bytes) noexcept {
  // Why here and not in llhttp: llhttp (even strict) joins an obs-fold line
  // (LF then SP or HTAB) to the value before it, so "X: a CRLF SP
  // Transfer-Encoding: chunked" would be one field to us and two to another
  // hop (RFC 9112 §5.2 lets a client reject it), and it takes a bare LF
  // after the status line. In a head, a line never starts with a blank
  // otherwise, and every LF follows a CR; the scan stops where the head ends.
  // Only the bytes around each LF matter, so memchr jumps from LF to LF.
  if (bytes.empty()) return nullptr;
  const char* const begin = bytes.data();
  const std::size_t size = bytes.size();
  if (after_lf_ && (begin[0] == ' ' || begin[0] == '\t')) return "obs-fold in a header field";
  for (std::size_t from = 0; from < size;) {
    const void* found = std::memchr(begin + from, '\n', size - from);
    if (found == nullptr) break;
    const auto at = static_cast<std::size_t>(static_cast<const char*>(found) - begin);
    const bool cr_before = at == 0 ? after_cr_ : begin[at - 1] == '\r';
    if (!cr_before) return "bare LF in a response head";
    if (at + 1 < size && (begin[at + 1] == ' ' || begin[at + 1] == '\t')) return "obs-fold in a header field";
    from = at + 1;
  }
  after_lf_ = begin[size - 1] == '\n';
  after_cr_ = begin[size - 1] == '\r';
  return nullptr;
}

ResponseParser::Result ResponseParser::skip_sized_body(std::uint64_t count) {
  // Why fed rather than a counter set: llhttp then ends the message as it
  // would (keep-alive, the state for the next response); a sized body costs
  // it one span per feed, not a pass over the bytes.
  static const char kZeros[64 * 1024] = {};
  for (;;) {
    const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(count, sizeof kZeros));
    const Result result = feed(std::string_view(kZeros, size));
    count -= result.consumed;
    if (result.event != Event::body) return result;
  }
}

ResponseParser::Result ResponseParser::feed(std::string_view data) {
  if (state_ == State::failed) return {Event::error, 0, {}};
  if (state_ == State::done) {
    if (data.empty()) return {Event::need_more, 0, {}};
    if (upgraded_) {
      fail(ErrorKind::trailing_data, "bytes after 101 Switching Protocols belong to the new protocol");
      return failed(0);
    }
    if (!keep_alive_) {
      fail(ErrorKind::trailing_data, "bytes after a response that closes the connection");
      return failed(0);
    }
    state_ = State::between;
    after_lf_ = false;
    after_cr_ = false;
    interim_count_ = 0;
  }
  if (llhttp_get_errno(&parser_) == HPE_PAUSED) llhttp_resume(&parser_);
  limit_crossed_at_ = nullptr;
  const bool scanning = state_ == State::between || state_ == State::in_head;
  pending_ = Event::need_more;
  const llhttp_errno_t error = llhttp_execute(&parser_, data.data(), data.size());
  if (error == HPE_OK) {
    if (scanning && (state_ == State::between || state_ == State::in_head)) {
      if (const char* wrong = scan_head_bytes(data); wrong != nullptr) {
        fail(ErrorKind::malformed, wrong);
        return failed(data.size());
      }
    }
    return {Event::need_more, data.size(), {}};
  }
  const char* position = llhttp_get_error_pos(&parser_);
  const std::size_t consumed = position == nullptr ? data.size() : static_cast<std::size_t>(position - data.data());
  if (error == HPE_PAUSED || error == HPE_PAUSED_UPGRADE) {
    if (pending_ == Event::headers || pending_ == Event::interim) {
      if (const char* wrong = scanning ? scan_head_bytes(data.substr(0, consumed)) : nullptr; wrong != nullptr) {
        fail(ErrorKind::malformed, wrong);
        return failed(consumed);
      }
      after_lf_ = false;
      after_cr_ = false;
    }
    if (pending_ == Event::body) return {Event::body, consumed, body_};
    return {pending_, consumed, {}};
  }
  flush_open_span(position);
  map_llhttp_error(error);
  // Why scan what came before the error: a split that ends earlier would
  // have found a fold or bare LF there first, and every split must give the
  // same error. Why only up to a crossed head limit: a span is handed over
  // at its end or at the end of an input, so the error position depends on
  // the cut, while the byte that crossed the limit does not; a split that
  // ends right after that byte never scans further.
  if (scanning) {
    std::size_t scanned = consumed;
    if (limit_crossed_at_ != nullptr && limit_crossed_at_ >= data.data()) {
      scanned = std::min(scanned, static_cast<std::size_t>(limit_crossed_at_ - data.data()));
    }
    if (const char* wrong = scan_head_bytes(data.substr(0, scanned)); wrong != nullptr) {
      error_kind_ = ErrorKind::malformed;
      error_message_ = wrong;
    }
  }
  return failed(consumed);
}

void ResponseParser::flush_open_span(const char* position) {
  // Why: llhttp stops at a bad byte without handing over the span (field
  // name or value, status, extension) that the byte interrupts, while a
  // read that ended earlier has handed over its first part. A limit that
  // part crossed must be reported the same however the bytes were cut, so
  // the rest of the span goes to its callback now. The two fields are
  // llhttp's own span state (llparse's generated `_span_pos0`/`_span_cb0`).
  if (error_kind_ != ErrorKind::none || position == nullptr || parser_._span_pos0 == nullptr) return;
  const char* start = static_cast<const char*>(parser_._span_pos0);
  if (start > position) return;
  using SpanCallback = int (*)(llhttp_t*, const char*, const char*);
  parser_._span_pos0 = nullptr;
  SpanCallback callback;  // Why memcpy: ISO C++ has no cast from an object pointer to a function pointer
  static_assert(sizeof callback == sizeof parser_._span_cb0);
  std::memcpy(&callback, &parser_._span_cb0, sizeof callback);
  callback(&parser_, start, position);
}

void ResponseParser::map_llhttp_error(llhttp_errno_t error) {
  if (error_kind_ != ErrorKind::none) return;  // set by one of our callbacks
  const char* reason = llhttp_get_error_reason(&parser_);
  std::string message = reason != nullptr && *reason != '\0' ? reason : llhttp_errno_name(error);
  switch (error) {
    case HPE_INVALID_CONTENT_LENGTH:
    case HPE_UNEXPECTED_CONTENT_LENGTH:
    case HPE_INVALID_TRANSFER_ENCODING: fail(ErrorKind::framing, std::move(message)); return;
    case HPE_INVALID_CHUNK_SIZE: fail(ErrorKind::bad_chunk, std::move(message)); return;
    case HPE_INVALID_VERSION: fail(ErrorKind::unexpected_status, std::move(message)); return;
    case HPE_CLOSED_CONNECTION: fail(ErrorKind::trailing_data, std::move(message)); return;
    default:
      // Past the head of a chunked body, what breaks is the chunking (or its trailers).
      fail(headers_done_ && head_.framing == BodyFraming::chunked ? ErrorKind::bad_chunk : ErrorKind::malformed,
           std::move(message));
      return;
  }
}

ResponseParser::Result ResponseParser::finish() {
  switch (state_) {
    case State::failed: return {Event::error, 0, {}};
    case State::between:
      // After a 1xx the final response is still owed.
      if (interim_count_ > 0) {
        fail(ErrorKind::truncated, "connection closed after an interim response");
        return failed(0);
      }
      [[fallthrough]];
    case State::done:
      state_ = State::done;
      keep_alive_ = false;
      return {Event::closed, 0, {}};
    case State::in_head: fail(ErrorKind::truncated, "connection closed inside a response head"); return failed(0);
    case State::in_body: break;
  }
  if (head_.framing == BodyFraming::none && !interim_) {
    // The head was the whole response; the caller had not fed on to see it complete.
    state_ = State::done;
    keep_alive_ = false;
    return {Event::complete, 0, {}};
  }
  if (head_.framing == BodyFraming::until_eof) {
    // RFC 9112 §6.3 rule 8: the close is the body's end.
    state_ = State::done;
    keep_alive_ = false;
    return {Event::complete, 0, {}};
  }
  // Why a kind of its own: a client must never take a cut response for a
  // whole one; the caller may retry an idempotent request, never reuse the body.
  fail(ErrorKind::truncated, head_.framing == BodyFraming::chunked ? "connection closed inside a chunked body"
                                                                   : "connection closed inside a sized body");
  return failed(0);
}

}  // namespace tiffany::http

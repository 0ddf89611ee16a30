// RequestParser: llhttp callbacks → Request, with limits and error statuses.
#include "http/engine/request_parser.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>

#include <tiffany/http/headers.hpp>
#include <tiffany/http/uri.hpp>

#include "http/engine/request_head_checks.hpp"

namespace tiffany::http {
namespace {

RequestParser& self(llhttp_t* parser) { return *static_cast<RequestParser*>(parser->data); }

// True when `data` holds (the start of) a well-formed request line,
// "token SP request-target SP HTTP/d.d CRLF": its method is then merely
// unknown (501), where anything else is a malformed line (400). What has not
// arrived yet is given the benefit of the doubt.
bool is_well_formed_request_line(std::string_view data) {
  std::size_t i = 0;
  while (i < data.size() && (data[i] == '\r' || data[i] == '\n')) ++i;  // blank lines between requests
  const std::size_t start = i;
  while (i < data.size() && is_token_char(data[i])) ++i;
  if (i == start) return false;
  if (i == data.size()) return true;
  if (data[i++] != ' ') return false;
  const std::size_t target = i;
  while (i < data.size() && data[i] > ' ' && data[i] != '\x7f') ++i;
  if (i == data.size()) return true;
  if (i == target || data[i++] != ' ') return false;
  constexpr std::string_view kVersion = "HTTP/d.d\r\n";
  for (std::size_t k = 0; k < kVersion.size() && i < data.size(); ++k, ++i) {
    const char expected = kVersion[k];
    if (expected == 'd' ? (data[i] < '0' || data[i] > '9') : data[i] != expected) return false;
  }
  return true;
}

// True when the `Word`-sized piece of a field name at `name` is the lower-case
// piece at `lower`, ignoring case (see is_name for why OR 0x20 is enough).
template <class Word>
inline bool word_is(const char* name, const char* lower) noexcept {
  constexpr auto kCaseBits = static_cast<Word>(0x2020202020202020ULL);
  Word got;
  Word want;
  std::memcpy(&got, name, sizeof got);
  std::memcpy(&want, lower, sizeof want);
  return (got | kCaseBits) == want;
}

// True when the field name `name` is `lower` (lower case, same length)
// ignoring case. Inline, as it runs for every field. Why OR 0x20 is enough:
// a name is a token (llhttp is strict), and the only token byte that ORs to a
// lower-case letter or '-' is that letter's upper case. Why words: eight
// bytes (then four) per compare; the lengths are constants, so the loops unroll.
template <std::size_t N>
inline bool is_name(std::string_view name, const char (&lower)[N]) noexcept {
  constexpr std::size_t kLength = N - 1;
  std::size_t i = 0;
  for (; i + 8 <= kLength; i += 8) {
    if (!word_is<std::uint64_t>(name.data() + i, lower + i)) return false;
  }
  for (; i + 4 <= kLength; i += 4) {
    if (!word_is<std::uint32_t>(name.data() + i, lower + i)) return false;
  }
  for (; i < kLength; ++i) {
    if ((name[i] | 0x20) != lower[i]) return false;
  }
  return true;
}

}  // namespace

RequestParser::RequestParser(const HttpLimits& limits) : limits_(limits) {
  llhttp_settings_init(&settings_);
  settings_.on_message_begin = on_message_begin;
  settings_.on_url = on_url;
  settings_.on_header_field = on_header_field;
  settings_.on_header_value = on_header_value;
  settings_.on_header_value_complete = on_header_value_complete;
  settings_.on_chunk_header = on_chunk_header;
  settings_.on_headers_complete = on_headers_complete;
  settings_.on_body = on_body;
  settings_.on_message_complete = on_message_complete;
  llhttp_init(&parser_, HTTP_REQUEST, &settings_);
  // Why lenient about the version only: llhttp refuses "HTTP/1.2", which
  // RFC 9112 §2.3 says to answer as 1.1; check_headers judges the version.
  // Everything else is strict (llhttp is built with LLHTTP_STRICT_MODE).
  parser_.lenient_flags |= LENIENT_VERSION;
  parser_.data = this;
}

int RequestParser::fail(int status, std::string detail) {
  error_status_ = status;
  error_detail_ = std::move(detail);
  return -1;  // llhttp reports HPE_USER (or the callback's error) and stops
}

bool RequestParser::count_header_bytes(std::size_t length) {
  header_bytes_ += length;
  return header_bytes_ <= limits_.max_header_bytes;
}

int RequestParser::on_message_begin(llhttp_t* parser) {
  RequestParser& p = self(parser);
  p.request_.clear();
  p.header_bytes_ = 0;
  p.in_message_ = true;
  p.headers_done_ = false;
  p.last_was_value_ = false;
  p.continue_pending_ = false;
  p.pause_ = Pause::none;
  p.streaming_body_ = false;
  p.body_bytes_ = 0;
  p.value_closed_ = false;
  p.transfer_encoding_seen_ = false;
  p.host_count_ = 0;
  p.expect_field_ = SIZE_MAX;
  return 0;
}

int RequestParser::on_url(llhttp_t* parser, const char* at, std::size_t length) {
  RequestParser& p = self(parser);
  if (p.request_.target.size() + length > p.limits_.max_uri_bytes) return p.fail(414, "request-target too long");
  if (!p.count_header_bytes(length)) return p.fail(431, "header section too large");
  if (p.request_.target.empty()) p.request_.method = llhttp_method_name(static_cast<llhttp_method_t>(parser->method));
  p.request_.target.append(at, length);
  return 0;
}

int RequestParser::on_header_field(llhttp_t* parser, const char* at, std::size_t length) {
  RequestParser& p = self(parser);
  const bool new_field = p.request_.headers.empty() || p.last_was_value_;
  // Why: a name may arrive in pieces; ": " and CRLF are counted once per field, not per piece.
  if (!p.count_header_bytes(length + (new_field ? 4 : 0))) return p.fail(431, "header section too large");
  if (new_field) {
    // Why here and not once the section is complete: refused as the field
    // past the limit starts, a request never holds more than the limit.
    if (p.request_.headers.size() >= p.limits_.max_header_count) return p.fail(431, "too many header fields");
    p.request_.headers.start_field();
  }
  p.request_.headers.last().name.append(at, length);
  p.last_was_value_ = false;
  return 0;
}

int RequestParser::on_header_value(llhttp_t* parser, const char* at, std::size_t length) {
  RequestParser& p = self(parser);
  // Why: llhttp joins an obs-fold line (CRLF then SP/HTAB) to the value it
  // continues, so "X: a CRLF HTAB Transfer-Encoding: chunked" would be one
  // field to us and maybe two to a front end. RFC 9112 §5.2 lets a server
  // reject it: 400. A value piece that ended at its CR followed by another
  // piece is a fold; so is a value whose first piece follows LF and blanks
  // (a fold after an empty first line; see folded_before).
  if (p.value_closed_) return p.fail(400, "obs-fold in a header field");
  std::string& value = p.request_.headers.last().value;
  // Why the colon test first: "Name: value" and "Name:value" in one read,
  // nearly every value, cannot be folds; only the rest are looked at closely.
  if (value.empty() && !(at - p.feed_begin_ >= 2 && (at[-1] == ':' || at[-2] == ':')) && p.folded_before(at)) {
    return p.fail(400, "obs-fold in a header field");
  }
  if (!p.count_header_bytes(length)) return p.fail(431, "header section too large");
  value.append(at, length);
  p.value_closed_ = at + length != p.feed_end_;  // a piece cut by the end of the read is not closed
  p.last_was_value_ = true;
  return 0;
}

bool RequestParser::folded_before(const char* at) const noexcept {
  // A fold is LF, at least one blank, then the value. Why at least one:
  // llhttp hands an empty value over as a zero-length piece at the start of
  // the next line, right after its LF. Where the blanks reach back to the
  // start of this read, the end of the previous one decides.
  const char* q = at;
  while (q > feed_begin_ && (q[-1] == ' ' || q[-1] == '\t')) --q;
  const bool blanks = q < at;
  return q > feed_begin_ ? blanks && q[-1] == '\n' : tail_lf_ && (blanks || tail_blanks_);
}

int RequestParser::on_header_value_complete(llhttp_t* parser) {
  // Why here, once per field line: name and value are both whole, and one
  // callback per field costs less than one per name and one per value.
  RequestParser& p = self(parser);
  p.value_closed_ = false;
  Headers::Field& field = p.request_.headers.last();
  // RFC 9112 §5.1: whitespace after the value is not part of it (llhttp
  // drops only the leading whitespace).
  std::string& value = field.value;
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
  const std::string& name = field.name;
  if (name.empty()) return p.fail(400, "empty field name");
  if (p.headers_done_) return 0;  // a trailer field: framing and routing are decided
  // What the end of the header section checks, noted as the fields go by so
  // it needs no scan of them. By length first: one compare for most names.
  switch (name.size()) {
    case 4:
      if (is_name(name, "host") && p.host_count_++ == 0) p.host_field_ = p.request_.headers.size() - 1;
      break;
    case 6:
      if (p.expect_field_ == SIZE_MAX && is_name(name, "expect")) p.expect_field_ = p.request_.headers.size() - 1;
      break;
    case 17:
      if (is_name(name, "transfer-encoding")) p.transfer_encoding_seen_ = true;
      break;
    default:
      break;
  }
  return 0;
}

int RequestParser::on_chunk_header(llhttp_t* parser) {
  RequestParser& p = self(parser);
  const std::uint64_t size = parser->content_length;
  // Why 2^63: no body is that large (nginx bounds chunk sizes by off_t the same way); a size
  // near 2^64 is an attempt to wrap someone's arithmetic, not a body too large.
  if (size >= (std::uint64_t{1} << 63)) return p.fail(400, "chunk size out of range");
  if (size > p.limits_.max_body_bytes - std::min<std::uint64_t>(p.body_bytes_, p.limits_.max_body_bytes)) {
    return p.fail(413, "body larger than the limit");
  }
  return 0;
}

int RequestParser::check_headers() {
  Request& request = request_;
  request.version_major = parser_.http_major;
  request.version_minor = parser_.http_minor;
  // RFC 9112 §2.3: a higher minor version is answered as the highest we
  // speak (1.1); another major version (0.9, 2.0, 3.0...) is 505.
  if (request.version_major != 1) return fail(505, "only HTTP/1.x is supported");
  if (request.version_minor > 1) request.version_minor = 1;

  // Framing first (RFC 9112 §6): whatever else is wrong, a message whose
  // length is in doubt closes the connection.
  if (transfer_encoding_seen_) {
    // RFC 9112 §6.1: Transfer-Encoding came with HTTP/1.1; in a 1.0 request
    // the framing is faulty. Tiffany refuses it (400) rather than guess.
    if (request.version_minor == 0) return fail(400, "Transfer-Encoding in an HTTP/1.0 request");
    // An empty field names no coding: llhttp does not flag it, and with a
    // Content-Length it would let that frame the body.
    if ((parser_.flags & F_TRANSFER_ENCODING) == 0) return fail(400, "empty Transfer-Encoding");
  }
  // RFC 9112 §3.2: exactly one valid Host in HTTP/1.1 (and never two, or an
  // invalid one, in 1.0), judged here, before any body is read.
  if (host_count_ > 1) return fail(400, "more than one Host field");
  if (host_count_ == 0) {
    if (request.version_minor >= 1) return fail(400, "no Host field");
  } else if (!is_valid_host(request.headers.begin()[host_field_].value)) {
    return fail(400, "invalid Host field");
  }

  if (const HeadRefusal refused = take_request_target(request, TargetForms::with_absolute)) {
    return fail(refused.status, refused.reason);
  }

  if ((parser_.flags & F_TRANSFER_ENCODING) != 0 && (parser_.flags & F_CHUNKED) == 0) {
    // RFC 9112 §6.3: without chunked last the body's length is unknown.
    return fail(400, "Transfer-Encoding without chunked last");
  }
  if ((parser_.flags & F_TRANSFER_ENCODING) != 0) {
    // Chunked comes last; anything else in the list is a coding we do not
    // implement (RFC 9112 §6.1: 501).
    for (std::string_view coding : request.headers.get_all("Transfer-Encoding")) {
      if (!iequals(coding, "chunked")) return fail(501, "unsupported transfer coding");
    }
  }
  const bool has_body = (parser_.flags & F_CHUNKED) != 0 || parser_.content_length > 0;
  const std::optional<std::uint64_t> declared =
      (parser_.flags & F_CONTENT_LENGTH) != 0 ? std::optional<std::uint64_t>(parser_.content_length) : std::nullopt;
  if (const HeadRefusal refused = check_declared_body(declared, limits_.max_body_bytes)) {
    return fail(refused.status, refused.reason);
  }
  if (expect_field_ != SIZE_MAX) {
    if (const HeadRefusal refused = check_expectation(request.headers.begin()[expect_field_].value)) {
      return fail(refused.status, refused.reason);
    }
    continue_pending_ = has_body && request.version_minor >= 1;
  }
  // Why no reserve for a declared Content-Length: the body grows with what
  // arrives. A declaration costs the client nothing, and reserving it whole
  // let 1,000 connections that declared 1 MB each and sent nothing take 1 GB.
  return 0;
}

int RequestParser::on_headers_complete(llhttp_t* parser) {
  RequestParser& p = self(parser);
  p.headers_done_ = true;
  const int checked = p.check_headers();
  if (checked != 0 || !p.stop_before_bodies_) return checked;
  if ((parser->flags & F_CHUNKED) != 0 || parser->content_length > 0) {
    // Why now as well: a handler that streams the body answers before its end.
    p.keep_alive_ = llhttp_should_keep_alive(parser) != 0 && parser->upgrade == 0;
    p.pause_ = Pause::headers;
    return HPE_PAUSED;  // llhttp resumes after the header section (llhttp__after_headers_complete)
  }
  return 0;
}

int RequestParser::on_body(llhttp_t* parser, const char* at, std::size_t length) {
  RequestParser& p = self(parser);
  if (p.body_bytes_ + length > p.limits_.max_body_bytes) return p.fail(413, "body larger than the limit");
  p.body_bytes_ += length;
  p.continue_pending_ = false;  // the client did not wait for us
  if (p.streaming_body_ && length > 0) {  // llhttp flushes an open span at each feed's end, even an empty one
    // Why pause per piece: the piece is a view into the caller's bytes; it
    // is handed out before llhttp parses past it (back-pressure, no copy).
    p.piece_ = std::string_view(at, length);
    p.pause_ = Pause::piece;
    return HPE_PAUSED;
  }
  p.request_.body.append(at, length);
  return 0;
}

int RequestParser::on_message_complete(llhttp_t* parser) {
  RequestParser& p = self(parser);
  // Why: after an Upgrade or CONNECT the bytes that follow are not HTTP/1;
  // we answer the request itself and then close.
  p.keep_alive_ = llhttp_should_keep_alive(parser) != 0 && parser->upgrade == 0;
  p.in_message_ = false;
  p.continue_pending_ = false;
  p.pause_ = Pause::message;
  return HPE_PAUSED;  // stop here so the request is answered before the next is parsed
}

bool RequestParser::take_continue_request() noexcept { return std::exchange(continue_pending_, false); }

void RequestParser::remember_tail(std::string_view used) noexcept {
  // Whether the bytes so far end with LF and then blanks: what the obs-fold
  // check needs of them when a value starts a read. Usually one compare.
  std::size_t end = used.size();
  while (end > 0 && (used[end - 1] == ' ' || used[end - 1] == '\t')) --end;
  if (end == 0) {
    tail_blanks_ = tail_blanks_ || !used.empty();  // all blanks: the earlier bytes still decide
    return;
  }
  tail_lf_ = used[end - 1] == '\n';
  tail_blanks_ = end < used.size();
}

RequestParser::Result RequestParser::feed(std::string_view data) {
  if (pause_ == Pause::piece) {  // the caller has used the last piece: parse on
    pause_ = Pause::none;
    llhttp_resume(&parser_);
    // Why never a null pointer: llhttp restarts an open span (the body's) at
    // the data's start, and a null start would lose it.
    static constexpr char kNothing[1] = {};
    if (data.data() == nullptr) data = std::string_view(kNothing, 0);
  }
  feed_begin_ = data.data();
  feed_end_ = data.data() + data.size();
  const llhttp_errno_t error = llhttp_execute(&parser_, data.data(), data.size());
  if (error == HPE_OK) {
    remember_tail(data);
    return {Event::need_more, data.size()};
  }
  const char* position = llhttp_get_error_pos(&parser_);
  const std::size_t consumed = position == nullptr ? data.size() : static_cast<std::size_t>(position - data.data());
  // Why no remember_tail past here: a request is complete (or the input is
  // refused), so the next feed starts at a request line, where no field
  // value can begin; the feed that reads into its header section remembers.
  if (error == HPE_PAUSED) {
    if (pause_ == Pause::piece) return {Event::body_piece, consumed};
    if (pause_ == Pause::headers) return {Event::headers_ready, consumed};
    return {Event::request_ready, consumed};
  }
  if (error == HPE_PAUSED_UPGRADE) {
    // Why: we speak no other protocol; answer this request, then close,
    // since what follows on the wire is not HTTP/1.
    keep_alive_ = false;
    return {Event::request_ready, consumed};
  }
  map_llhttp_error(error, data, position);
  return {Event::error, consumed};
}

void RequestParser::map_llhttp_error(llhttp_errno_t error, std::string_view data, const char* /*error_pos*/) {
  if (error_status_ != 0) return;  // set by one of our callbacks
  const std::string reason = llhttp_get_error_reason(&parser_) ? llhttp_get_error_reason(&parser_) : "";
  switch (error) {
    case HPE_INVALID_METHOD:
      if (is_well_formed_request_line(data)) {
        // For the access log: the method the client named.
        const auto begin = data.find_first_not_of("\r\n");
        const auto end = data.find(' ', begin);
        if (begin != std::string_view::npos && end != std::string_view::npos) {
          request_.method.assign(data.substr(begin, end - begin));
          const auto target_end = data.find(' ', end + 1);  // the line's shape is checked: no CR or LF in it
          const std::size_t length = target_end == std::string_view::npos ? 0 : target_end - end - 1;
          request_.target.assign(data.substr(end + 1, std::min<std::size_t>(length, limits_.max_uri_bytes)));
        }
        fail(501, "unknown method");
      } else {
        fail(400, reason);
      }
      return;
    case HPE_INVALID_VERSION:
      fail(reason == "Invalid HTTP version" ? 505 : 400, reason);
      return;
    case HPE_INVALID_TRANSFER_ENCODING:
      // RFC 9112 §6.3: chunked not last (or repeated) leaves the length
      // unknown: 400 and close. (A coding before chunked is 501, in check_headers.)
      fail(400, reason);
      return;
    case HPE_PAUSED_H2_UPGRADE:  // the HTTP/2 connection preface ("PRI * HTTP/2.0")
      fail(505, "HTTP/2 is not supported on this listener");
      return;
    default:
      fail(400, reason.empty() ? llhttp_errno_name(error) : reason);
      return;
  }
}

RequestParser::Event RequestParser::finish() {
  if (!in_message_) return Event::need_more;
  const llhttp_errno_t error = llhttp_finish(&parser_);
  if (error == HPE_OK || error == HPE_PAUSED) return Event::need_more;
  fail(400, "connection closed in the middle of a request");
  return Event::error;
}

void RequestParser::next() {
  pause_ = Pause::none;
  if (llhttp_get_errno(&parser_) == HPE_PAUSED) llhttp_resume(&parser_);
}

void RequestParser::read_body_whole() noexcept {
  pause_ = Pause::none;
  llhttp_resume(&parser_);
}

void RequestParser::stream_body() noexcept {
  streaming_body_ = true;
  pause_ = Pause::none;
  llhttp_resume(&parser_);
}

bool RequestParser::sized_body_left(std::uint64_t& left) const noexcept {
  if ((parser_.flags & F_CHUNKED) != 0) return false;
  left = in_message_ ? parser_.content_length : 0;  // llhttp counts a sized body down as it parses it
  return true;
}

}  // namespace tiffany::http

// RequestParser: llhttp callbacks → Request, with limits and error statuses.
#include "server/http/request_parser.hpp"

#include <charconv>

#include "server/http/headers.hpp"
#include "server/http/uri.hpp"

namespace tiffany::http {
namespace {

RequestParser& self(llhttp_t* parser) { return *static_cast<RequestParser*>(parser->data); }

// True when `line` starts with "TOKEN SP": a well-formed but unknown method.
bool starts_with_method_token(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == '\r' || line[i] == '\n')) ++i;  // blank lines between requests
  const std::size_t start = i;
  while (i < line.size() && is_token_char(line[i])) ++i;
  return i > start && i < line.size() && line[i] == ' ';
}

// Splits the request-target into path and query; handles origin-form,
// absolute-form ("http://host/path") and asterisk-form ("*").
bool split_target(std::string_view target, std::string_view& path, std::string_view& query) {
  if (target == "*") {
    path = target;
    query = {};
    return true;
  }
  if (!target.empty() && target.front() != '/') {
    const auto scheme_end = target.find("://");
    if (scheme_end == std::string_view::npos) return false;
    // The authority ends at the first '/', '?' or '#'; a missing path means "/".
    const auto authority_end = target.find_first_of("/?#", scheme_end + 3);
    if (authority_end == std::string_view::npos || target[authority_end] != '/') {
      path = "/";
      const auto question = authority_end == std::string_view::npos ? authority_end : target.find('?', authority_end);
      query = question == std::string_view::npos ? std::string_view{} : target.substr(question + 1);
      query = query.substr(0, query.find('#'));
      return true;
    }
    target = target.substr(authority_end);
  }
  const auto question = target.find('?');
  path = target.substr(0, question);
  query = question == std::string_view::npos ? std::string_view{} : target.substr(question + 1);
  const auto fragment = query.find('#');
  if (fragment != std::string_view::npos) query = query.substr(0, fragment);
  return true;
}

}  // namespace

RequestParser::RequestParser(const HttpLimits& limits) : limits_(limits) {
  llhttp_settings_init(&settings_);
  settings_.on_message_begin = on_message_begin;
  settings_.on_url = on_url;
  settings_.on_header_field = on_header_field;
  settings_.on_header_value = on_header_value;
  settings_.on_headers_complete = on_headers_complete;
  settings_.on_body = on_body;
  settings_.on_message_complete = on_message_complete;
  llhttp_init(&parser_, HTTP_REQUEST, &settings_);
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
  return 0;
}

int RequestParser::on_url(llhttp_t* parser, const char* at, std::size_t length) {
  RequestParser& p = self(parser);
  if (p.request_.target.size() + length > p.limits_.max_uri_bytes) return p.fail(414, "request-target too long");
  if (!p.count_header_bytes(length)) return p.fail(431, "header section too large");
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
  if (!p.count_header_bytes(length)) return p.fail(431, "header section too large");
  p.request_.headers.last().value.append(at, length);
  p.last_was_value_ = true;
  return 0;
}

int RequestParser::check_headers() {
  Request& request = request_;
  request.method = llhttp_method_name(static_cast<llhttp_method_t>(parser_.method));
  request.version_major = parser_.http_major;
  request.version_minor = parser_.http_minor;
  if (request.version_major != 1) return fail(505, "only HTTP/1.x is supported");

  std::string_view raw_path;
  std::string_view query;
  if (!split_target(request.target, raw_path, query)) return fail(400, "malformed request-target");
  if (raw_path == "*") {
    request.path = "*";
  } else if (!normalize_path(raw_path, request.path)) {
    return fail(400, "malformed path");
  }
  request.query.assign(query);

  if ((parser_.flags & F_TRANSFER_ENCODING) != 0) {
    // llhttp insists that chunked comes last; anything else in the list is a
    // coding we do not implement.
    for (std::string_view coding : request.headers.get_all("Transfer-Encoding")) {
      if (!iequals(coding, "chunked")) return fail(501, "unsupported transfer coding");
    }
  }
  const bool has_body = (parser_.flags & F_CHUNKED) != 0 || parser_.content_length > 0;
  if ((parser_.flags & F_CONTENT_LENGTH) != 0 && parser_.content_length > limits_.max_body_bytes) {
    return fail(413, "body larger than the limit");
  }
  if (auto expect = request.headers.get("Expect")) {
    if (!iequals(*expect, "100-continue")) return fail(417, "unsupported expectation");
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
  return p.check_headers();
}

int RequestParser::on_body(llhttp_t* parser, const char* at, std::size_t length) {
  RequestParser& p = self(parser);
  if (p.request_.body.size() + length > p.limits_.max_body_bytes) return p.fail(413, "body larger than the limit");
  p.continue_pending_ = false;  // the client did not wait for us
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
  return HPE_PAUSED;  // stop here so the request is answered before the next is parsed
}

bool RequestParser::take_continue_request() noexcept { return std::exchange(continue_pending_, false); }

RequestParser::Result RequestParser::feed(std::string_view data) {
  const llhttp_errno_t error = llhttp_execute(&parser_, data.data(), data.size());
  if (error == HPE_OK) return {Event::need_more, data.size()};
  const char* position = llhttp_get_error_pos(&parser_);
  const std::size_t consumed = position == nullptr ? data.size() : static_cast<std::size_t>(position - data.data());
  if (error == HPE_PAUSED) return {Event::request_ready, consumed};
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
      if (starts_with_method_token(data)) {
        fail(501, "unknown method");
      } else {
        fail(400, reason);
      }
      return;
    case HPE_INVALID_VERSION:
      fail(reason == "Invalid HTTP version" ? 505 : 400, reason);
      return;
    case HPE_INVALID_TRANSFER_ENCODING:
      fail(501, reason);
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
  if (llhttp_get_errno(&parser_) == HPE_PAUSED) llhttp_resume(&parser_);
}

}  // namespace tiffany::http

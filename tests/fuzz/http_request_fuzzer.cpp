// libFuzzer target: HTTP/1 request parsing (the llhttp adapter) and routing,
// driven the way HttpConnection drives them, with the invariants every request must keep.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include <tiffany/handlers/handler.hpp>
#include <tiffany/http/http_limits.hpp>
#include <tiffany/http/request.hpp>
#include <tiffany/http/response.hpp>
#include <tiffany/http/uri.hpp>

#include "http/engine/request_parser.hpp"
#include "server/http/router.hpp"

namespace {

using tiffany::http::HttpLimits;
using tiffany::http::Request;
using tiffany::http::RequestParser;
using tiffany::http::Router;

// Why: __builtin_trap cannot be caught or ignored, so libFuzzer always records
// the input; the message says which invariant broke.
void check(bool ok, const char* invariant) {
  if (ok) return;
  std::fprintf(stderr, "http_request_fuzzer: invariant broken: %s\n", invariant);
  __builtin_trap();
}

// Routes need a target; the fuzzer never runs one.
class NeverCalled final : public tiffany::Handler {
 public:
  tiffany::Task<void> handle(Request& /*request*/, tiffany::http::Response& /*response*/) override { co_return; }
};

// A route table with every kind of pattern: literals, parameters, wildcards,
// a trailing slash, several methods, any method, and overlaps that need precedence.
const Router& router() {
  static const Router table = [] {
    Router routes;
    const auto handler = std::make_shared<NeverCalled>();
    routes.add({"GET"}, "/", handler);
    routes.add({"GET", "HEAD"}, "/index.html", handler);
    routes.add({"POST"}, "/users", handler);
    routes.add({"GET"}, "/users/me", handler);
    routes.add({"GET"}, "/users/:id", handler);
    routes.add({"PUT", "DELETE", "PATCH"}, "/users/:id", handler);
    routes.add({"GET"}, "/users/:id/posts/:post", handler);
    routes.add({"GET"}, "/files/:dir/*", handler);
    routes.add({"GET", "HEAD"}, "/static/*", handler);
    routes.add({}, "/api/*", handler);
    routes.add({"GET"}, "/api/v1/health", handler);
    routes.add({"GET", "OPTIONS"}, "/docs/", handler);
    routes.add({"POST", "PUT"}, "/echo", handler);
    return routes;
  }();
  return table;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Why: volatile, so reading the results cannot be optimised away.
volatile std::size_t g_touched = 0;

void check_path(const std::string& path) {
  check(!path.empty(), "path is not empty");
  check(path == "*" || path.front() == '/', "path starts with '/' or is \"*\"");
  check(path.find('\0') == std::string::npos, "path holds no NUL");
  check(path.find("//") == std::string::npos, "path holds no \"//\"");
  check(path.find("/./") == std::string::npos && !ends_with(path, "/."), "path holds no \".\" segment");
  check(path.find("/../") == std::string::npos && !ends_with(path, "/.."), "path holds no \"..\" segment");
}

void check_error_status(int status) {
  for (const int expected : {400, 413, 414, 417, 431, 501, 505}) {
    if (status == expected) return;
  }
  std::fprintf(stderr, "http_request_fuzzer: unexpected error status %d\n", status);
  check(false, "error_status() is one of 400, 413, 414, 417, 431, 501, 505");
}

// Checks a complete request and routes it, as HttpConnection::answer does.
void answer(Request& request, const HttpLimits& limits) {
  check_path(request.path);
  check(!request.method.empty(), "method is set");
  check(request.version_major == 1, "version is HTTP/1.x");
  check(request.version_minor == 0 || request.version_minor == 1, "a higher minor version is answered as 1.1");
  check(request.path != "*" || request.method == "OPTIONS", "only OPTIONS has the asterisk-form");
  // RFC 9112 §3.2: an accepted HTTP/1.1 request has a valid Host (its first field of that name;
  // a trailer may add another).
  const auto host = request.headers.get("Host");
  check(request.version_minor == 0 || host.has_value(), "an HTTP/1.1 request has a Host field");
  check(!host || tiffany::http::is_valid_host(*host), "Host is valid");
  for (const auto& field : request.headers) {
    check(!field.name.empty(), "no empty field name");
    check(tiffany::http::is_valid_field_name(field.name), "field names are tokens");
    check(tiffany::http::find_invalid_field_value_byte(field.value) == std::string::npos,
          "field values hold no CR, LF, NUL or other control byte (no obs-fold got through)");
    check(field.value.empty() || (field.value.back() != ' ' && field.value.back() != '\t'),
          "field values carry no trailing whitespace");
  }
  check(request.target.size() <= limits.max_uri_bytes, "request-target within the URI limit");
  check(request.body.size() <= limits.max_body_bytes, "body within the body limit");

  const Router::Result routed = router().route(request);
  std::size_t touched = routed.allow.size();
  switch (routed.outcome) {
    case Router::Outcome::found:
      check(routed.handler != nullptr, "a found route has a handler");
      for (const auto& [name, value] : request.params) {
        check(!name.empty(), "parameter names are not empty");
        if (name != "*") {
          check(!value.empty() && value.find('/') == std::string::npos, "a :param captures one whole segment");
        }
        touched += value.size();
      }
      break;
    case Router::Outcome::method_not_allowed:
      check(routed.handler == nullptr && !routed.allow.empty(), "405 names the allowed methods");
      break;
    case Router::Outcome::not_found: check(routed.handler == nullptr, "404 has no handler"); break;
  }
  if (auto id = request.param("id")) touched += id->size();
  if (auto rest = request.param("*")) touched += rest->size();
  if (auto q = request.query_param("q")) touched += q->size();
  if (auto id = request.query_param("id")) touched += id->size();
  if (auto host_field = request.headers.get("Host")) touched += host_field->size();
  touched += request.headers.get_all("Cookie").size();
  for (const auto& field : request.headers) touched += field.name.size() + field.value.size();
  touched += request.is_head() ? 1 : 0;
  g_touched = g_touched + touched;
}

// Appends what a handler sees of `request` (with `body`, whole or streamed) to `out`, each field length-prefixed.
void describe(const Request& request, std::string_view body, bool keep_alive, std::string& out) {
  const auto add = [&out](std::string_view text) {
    out += std::to_string(text.size());
    out += ':';
    out += text;
  };
  out += "request ";
  add(request.method);
  add(request.target);
  add(request.path);
  add(request.query);
  out += std::to_string(request.version_minor);
  for (const auto& field : request.headers) {
    add(field.name);
    add(field.value);
  }
  add(body);
  out += keep_alive ? " keep-alive\n" : " close\n";
}

// One parser driven like a connection: pieces in, requests answered, closed
// after an error or a request that does not keep the connection alive. The
// transcript records what happened, to compare feeding in pieces with feeding
// at once. With `stream_bodies`, every body is handed out piece by piece (as
// to a handler that streams it) and the pieces joined must be the whole body.
class FuzzConnection {
 public:
  explicit FuzzConnection(const HttpLimits& limits, bool stream_bodies = false)
      : limits_(limits), parser_(limits), stream_bodies_(stream_bodies) {
    parser_.stop_before_bodies(stream_bodies);
  }

  const std::string& transcript() const noexcept { return transcript_; }

  void receive(std::string_view piece) {
    int stalls = 0;
    // Why on after a piece with nothing left: it may have been the last of a sized body (as HttpConnection::read_body).
    while (open_ && (!piece.empty() || parser_.after_piece())) {
      const RequestParser::Result parsed = parser_.feed(piece);
      check(parsed.consumed <= piece.size(), "feed consumes at most what it was given");
      piece.remove_prefix(parsed.consumed);
      // Why: the connection loop feeds until the piece is used up; no progress means it spins.
      stalls = parsed.consumed == 0 ? stalls + 1 : 0;
      check(stalls < 3, "feed makes progress");
      switch (parsed.event) {
        case RequestParser::Event::need_more: check(piece.empty(), "need_more consumes everything"); break;
        case RequestParser::Event::headers_ready:
          check(stream_bodies_, "headers_ready only when asked to stop before bodies");
          check(!parser_.in_headers() && parser_.in_message(), "headers_ready: the header section is complete");
          streamed_.clear();
          parser_.stream_body();
          break;
        case RequestParser::Event::body_piece:
          check(!parser_.body_piece().empty(), "a body piece is never empty");
          streamed_ += parser_.body_piece();
          check(streamed_.size() <= limits_.max_body_bytes, "a streamed body stays within the body limit");
          check(parser_.request().body.empty(), "a streamed body is not stored");
          break;
        case RequestParser::Event::error:
          check_error_status(parser_.error_status());
          // What the access log records of a refused request stays within the limits.
          check(parser_.rejected().target.size() <= limits_.max_uri_bytes, "a refused target is bounded");
          g_touched = g_touched + parser_.rejected().method.size();
          transcript_ += "error\n";
          open_ = false;
          break;
        case RequestParser::Event::request_ready:
          answer(parser_.request(), limits_);
          check(streamed_.empty() || parser_.request().body.empty(), "a body is streamed or stored, never both");
          describe(parser_.request(), streamed_.empty() ? std::string_view(parser_.request().body) : streamed_,
                   parser_.keep_alive(), transcript_);
          streamed_.clear();
          parser_.next();
          if (!parser_.keep_alive()) open_ = false;
          break;
      }
    }
    g_touched = g_touched + (parser_.take_continue_request() ? 1 : 0);
  }

  // The peer closed its side.
  void close() {
    if (!open_) return;
    if (parser_.finish() == RequestParser::Event::error) {
      check_error_status(parser_.error_status());
      transcript_ += "cut short\n";
    }
    open_ = false;
  }

 private:
  HttpLimits limits_;
  RequestParser parser_;
  bool stream_bodies_;
  bool open_ = true;
  std::string transcript_;
  std::string streamed_;  // the pieces of the current body so far
};

// Cuts the input into the pieces a socket might deliver: the first cut at an
// offset chosen by the first byte, the rest in sizes that follow from it too
// (single bytes, short runs and long ones). Deterministic for a given input.
class Pieces {
 public:
  explicit Pieces(std::string_view input) : rest_(input) {
    const auto first = static_cast<std::uint8_t>(input.front());
    state_ = 0x9e3779b9u ^ (static_cast<std::uint32_t>(first) << 16) ^ static_cast<std::uint32_t>(input.size());
    first_cut_ = first % (input.size() + 1);
  }

  bool done() const noexcept { return rest_.empty(); }

  std::string_view next() {
    std::size_t length = 0;
    if (first_cut_ != 0) {
      length = first_cut_;
      first_cut_ = 0;
    } else {
      const std::uint32_t r = step();
      switch (r % 4) {
        case 0: length = 1; break;
        case 1: length = 1 + (r >> 8) % 16; break;
        default: length = 1 + (r >> 8) % 2048; break;
      }
    }
    const std::string_view piece = rest_.substr(0, length);
    rest_.remove_prefix(piece.size());
    return piece;
  }

 private:
  std::uint32_t step() noexcept {  // xorshift32
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_;
  }

  std::string_view rest_;
  std::uint32_t state_;
  std::size_t first_cut_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  HttpLimits small_limits;
  small_limits.max_header_bytes = 256;
  small_limits.max_header_count = 8;
  small_limits.max_uri_bytes = 64;
  small_limits.max_body_bytes = 128;

  for (const HttpLimits& limits : {HttpLimits{}, small_limits}) {
    FuzzConnection in_pieces{limits};
    for (Pieces pieces(input); !pieces.done();) in_pieces.receive(pieces.next());
    in_pieces.close();

    // Why: RequestParser promises that fragmentation anywhere is fine, so the
    // same bytes in one piece must give the same requests and the same end.
    // Error statuses are left out: 501 vs 400 for a bad method looks only at the current piece.
    FuzzConnection at_once{limits};
    at_once.receive(input);
    at_once.close();
    if (in_pieces.transcript() != at_once.transcript()) {
      std::fprintf(stderr, "in pieces:\n%s\nat once:\n%s\n", in_pieces.transcript().c_str(),
                   at_once.transcript().c_str());
      check(false, "feeding in pieces gives what feeding at once gives");
    }
    // And a body handed out piece by piece (a streaming handler's) is the whole body.
    FuzzConnection streamed{limits, true};
    for (Pieces pieces(input); !pieces.done();) streamed.receive(pieces.next());
    streamed.close();
    if (streamed.transcript() != at_once.transcript()) {
      std::fprintf(stderr, "streamed:\n%s\nat once:\n%s\n", streamed.transcript().c_str(),
                   at_once.transcript().c_str());
      check(false, "streaming bodies gives what reading them whole gives");
    }
  }
  return 0;
}

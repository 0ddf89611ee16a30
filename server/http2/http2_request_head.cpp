// Http2Connection: a stream's header block into its Request, judged as HTTP/1.1 judges one.
#include "server/http2/http2_connection.hpp"

#include <charconv>

#include <tiffany/http/uri.hpp>

#include "http/engine/known_methods.hpp"
#include "http/engine/request_head_checks.hpp"

namespace tiffany::http2 {
namespace {

// Why 32 a field: RFC 9113 §6.5.2 counts each field as name + value + 32.
constexpr std::size_t kFieldOverhead = 32;

std::string_view text(const std::uint8_t* bytes, std::size_t size) noexcept {
  return {reinterpret_cast<const char*>(bytes), size};
}

}  // namespace

int Http2Connection::on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name_bytes,
                               std::size_t name_length, const std::uint8_t* value_bytes, std::size_t value_length,
                               std::uint8_t, void* self) {
  Http2Connection& connection = *static_cast<Http2Connection*>(self);
  Http2Stream* stream = connection.find(frame->hd.stream_id);
  if (stream == nullptr || stream->refusal != 0 || stream->phase != StreamPhase::headers) return 0;  // trailers are not kept
  const http::HttpLimits& limits = connection.site_.limits;
  stream->header_bytes += name_length + value_length + kFieldOverhead;
  ++stream->header_count;
  if (stream->header_bytes > connection.site_.http2.max_header_list_size ||
      stream->header_count > limits.max_header_count) {
    stream->refusal = 431;  // answered by headers_complete, once the block has ended
    return 0;
  }
  const std::string_view name = text(name_bytes, name_length);
  const std::string_view value = text(value_bytes, value_length);
  http::Request& request = stream->request();
  if (name.empty()) return 0;
  if (name.front() != ':') {
    if (name == "cookie") {
      // Why gathered: RFC 9113 §8.2.3 lets a client split Cookie into
      // fields; handlers and HTTP/1.1 upstreams expect one, joined by "; ".
      if (!stream->cookies.empty()) stream->cookies += "; ";
      stream->cookies.append(value);
      return 0;
    }
    if (name == "host") {
      // :authority came first (pseudo-fields lead) and became Host: a
      // different host makes the request malformed (RFC 9113 §8.3.1).
      const std::optional<std::string_view> authority = request.headers.get("Host");
      if (authority) {
        if (*authority != value) stream->refusal = 400;
        return 0;
      }
    }
    request.headers.add(name, value);
    return 0;
  }
  if (name == ":method") {
    request.method.assign(value);
  } else if (name == ":path") {
    if (value.size() > limits.max_uri_bytes) {
      stream->refusal = 414;
      return 0;
    }
    request.target.assign(value);
  } else if (name == ":protocol") {
    stream->connect_protocol.assign(value);
  } else if (name == ":authority") {
    // Why as Host: handlers and the router read Host; RFC 9113 §8.3.1 makes
    // :authority its equivalent (a host field after it must agree).
    request.headers.add("Host", value);
  }
  return 0;
}

void Http2Connection::headers_complete(Http2Stream& stream, bool end_stream) {
  stream.request_complete = end_stream;
  stream.body_began = Scheduler::current().now();
  stream.last_input = stream.body_began;
  http::Request& request = stream.request();
  if (!stream.cookies.empty()) request.headers.add("cookie", stream.cookies);
  if (stream.refusal != 0) {  // a limit passed while its fields arrived
    refuse(stream, stream.refusal);
    return;
  }
  if (!http::is_known_method(request.method)) {
    refuse(stream, 501);  // Why: as HTTP/1.1 answers a method its parser does not know (RFC 9110 §9.1)
    return;
  }
  if (request.method == "CONNECT") {
    // Why 501: CONNECT tunnels to elsewhere are not offered; the one
    // protocol an extended CONNECT may ask for here is websocket.
    if (!http::iequals(stream.connect_protocol, "websocket")) {
      refuse(stream, 501);
      return;
    }
    request.method = "GET";  // Why: RFC 8441 §5 routes it as the GET an HTTP/1.1 client would have sent
    stream.websocket_connect = true;
  }
  if (const http::HeadRefusal refused = http::take_request_target(request, http::TargetForms::origin_and_asterisk)) {
    refuse(stream, refused.status);
    return;
  }
  const std::optional<std::string_view> host = request.headers.get("Host");
  if (host && !http::is_valid_host(*host)) {
    refuse(stream, 400);
    return;
  }
  std::optional<std::uint64_t> declared;
  if (const std::optional<std::string_view> field = request.headers.get("Content-Length")) {
    std::uint64_t length = 0;
    const auto [end, error] = std::from_chars(field->data(), field->data() + field->size(), length);
    if (error == std::errc() && end == field->data() + field->size()) declared = length;
  }
  const std::optional<std::string_view> expect = request.headers.get("Expect");
  for (const http::HeadRefusal refused :
       {http::check_declared_body(declared, site_.limits.max_body_bytes), http::check_expectation(expect)}) {
    if (refused) {
      refuse(stream, refused.status);
      return;
    }
  }
  if (stream.websocket_connect) {
    stream_body(stream);
    if (end_stream) stream.input().end();
    return;
  }
  if (end_stream) {
    start_task(stream);
    return;
  }
  if (expect || site_.router.streams_any()) {
    http::Router::Result routed = site_.router.route(request);
    // Why a task now for an unrouted request that waits to be invited: its
    // 404 or 405 is the answer, and the client sends no body before one
    // (RFC 9110 §10.1.1); its handler reads the body, if at all, as it comes.
    const bool now = routed.streams_body || (expect && routed.outcome != http::Router::Outcome::found);
    stream.routed_early(std::move(routed));  // Why: the task need not route it again
    if (now) {
      stream_body(stream);
      return;
    }
  }
  if (!enter(stream, StreamPhase::uploading)) return;
  uploads_.push_back(stream.id());  // a whole body to come: release_window gives the oldest its window first
  if (expect) {
    // Why at once: the whole body is read before the handler runs, so a client waiting to be invited need not wait.
    (void)submit_continue(session_, stream.id());
  }
}

}  // namespace tiffany::http2

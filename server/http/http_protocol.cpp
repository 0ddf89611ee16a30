// The HTTP protocol: an HttpConnection state per burst, from the spares; HTTP/2 where agreed.
#include "server/http/http_protocol.hpp"

#include <string>

#include <tiffany/coro/deadline.hpp>

#include "server/http2/connection_preface.hpp"
#include "server/http2/http2_connection.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany {

Task<bool> HttpProtocol::serve(ByteStream& stream, ConnectionContext& context, ReadLease first) {
  if (site_.http2.enabled) {
    if (stream.alpn() == "h2") co_return co_await serve_http2(stream, context, std::move(first));
    // Why only a first burst in cleartext: prior knowledge means the preface
    // opens the connection (RFC 9113 §3.3); over TLS only ALPN picks HTTP/2.
    if (context.first_burst && !context.tls && http2::match_preface(first.bytes()) != http2::PrefaceMatch::no) {
      co_return co_await serve_http2(stream, context, std::move(first));
    }
  }
  std::unique_ptr<http::HttpConnection> state;
  if (spare_states_.empty()) {
    state = std::make_unique<http::HttpConnection>(site_);
  } else {
    state = std::move(spare_states_.back());
    spare_states_.pop_back();
  }
  const bool keep_open = co_await state->serve(stream, context, std::move(first));
  // Why only then: a burst that ends idle leaves the parser between
  // requests, ready for anyone; one that closes may leave it mid-message.
  if (keep_open && spare_states_.size() < kMaxSpareStates) {
    state->trim();
    spare_states_.push_back(std::move(state));
  }
  co_return keep_open;
}

Task<bool> HttpProtocol::serve_http2(ByteStream& stream, ConnectionContext& context, ReadLease first) {
  std::string opening(first.bytes());
  first.reset();
  const bool agreed = stream.alpn() == "h2";  // by ALPN: nghttp2 checks the preface, however it arrives
  // Why read on in cleartext: a client may send the 24-byte preface in pieces;
  // until it is whole we cannot tell HTTP/2 from a request line that starts alike.
  while (!agreed && http2::match_preface(opening) == http2::PrefaceMatch::partial) {
    context.deadline.rearm_after(site_.timeouts.header);
    ReadLease more;
    const Timed<IoResult> read = co_await within(context.deadline, TimeoutStage::header, stream.read_pooled(more));
    if (read.timed_out() || !*read || (*read).bytes() == 0) co_return false;
    opening.append(more.bytes());
  }
  context.deadline.disarm();
  if (!agreed && http2::match_preface(opening) != http2::PrefaceMatch::complete) {
    // Began like the preface, then was not: no HTTP/1.1 request starts "PRI * HTTP/2.0" either.
    static constexpr std::string_view kRefusal =
        "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
    (void)co_await stream.write(kRefusal.data(), kRefusal.size());
    stream.finish();
    co_return false;
  }
  auto connection = std::make_unique<http2::Http2Connection>(site_);
  co_return co_await connection->serve(stream, context, std::move(opening));
}

}  // namespace tiffany

// The HTTP protocol: an HttpConnection state per burst, from the spares; HTTP/2 where agreed.
#include "server/http/http_protocol.hpp"

#include <cstring>
#include <string>

#include <tiffany/coro/deadline.hpp>

#include "reactor/engine/spare_read_buffers.hpp"
#include "server/http2/connection_preface.hpp"
#include "server/http2/http2_connection.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany {

Task<AfterBurst> HttpProtocol::serve(ByteStream& stream, ConnectionContext& context, ReadLease first) {
  if (site_.http2.enabled) {
    if (stream.alpn() == "h2") co_return co_await serve_http2(stream, context, std::move(first));
    // Why only a first burst in cleartext: prior knowledge means the preface
    // opens the connection (RFC 9113 §3.3); over TLS only ALPN picks HTTP/2.
    if (context.first_burst && !context.tls) {
      http2::PrefaceMatch match = http2::match_preface(first.bytes());
      if (match == http2::PrefaceMatch::partial) {
        const PrefaceRead preface = co_await read_until_preface_told(stream, context, first);
        if (preface == PrefaceRead::lost) co_return AfterBurst::close;
        match = http2::match_preface(first.bytes());
      }
      if (match == http2::PrefaceMatch::complete) co_return co_await serve_http2(stream, context, std::move(first));
    }
  }
  std::unique_ptr<http::HttpConnection> state;
  if (spare_states_.empty()) {
    state = std::make_unique<http::HttpConnection>(site_);
  } else {
    state = std::move(spare_states_.back());
    spare_states_.pop_back();
  }
  const AfterBurst after = co_await state->serve(stream, context, std::move(first));
  // Why only then: a burst that ends idle leaves the parser between
  // requests, ready for anyone; one that closes may leave it mid-message.
  if (after == AfterBurst::idle && spare_states_.size() < kMaxSpareStates) {
    state->trim();
    spare_states_.push_back(std::move(state));
  }
  co_return after;
}

Task<HttpProtocol::PrefaceRead> HttpProtocol::read_until_preface_told(ByteStream& stream, ConnectionContext& context,
                                                                      ReadLease& first) {
  // Why: a client may send the 24-byte preface in pieces, and "P" may as
  // well begin "POST": read on, into one buffer, until the bytes tell.
  ReadLease gathered = SpareReadBuffers::for_this_thread().take();
  std::memcpy(gathered.data(), first.data(), first.size());
  gathered.set_size(first.size());
  first = std::move(gathered);
  while (http2::match_preface(first.bytes()) == http2::PrefaceMatch::partial) {
    context.deadline.rearm_after(site_.timeouts.header);
    const Timed<IoResult> read = co_await within(context.deadline, TimeoutStage::header,
                                                 stream.read(first.data() + first.size(), kReadBufferSize - first.size()));
    if (read.timed_out() || !*read || (*read).bytes() == 0) co_return PrefaceRead::lost;
    first.set_size(first.size() + (*read).bytes());
  }
  context.deadline.disarm();
  co_return PrefaceRead::told;
}

Task<AfterBurst> HttpProtocol::serve_http2(ByteStream& stream, ConnectionContext& context, ReadLease first) {
  std::string opening(first.bytes());
  first.reset();
  auto connection = std::make_unique<http2::Http2Connection>(site_, http2_streams_);
  co_return co_await connection->serve(stream, context, std::move(opening));
}

}  // namespace tiffany

// splice_response: decide, write what was read past the head, splice the rest, and settle the outcome.
#include "handlers/builtin/proxy/proxy_splice.hpp"

#include <optional>
#include <string>

#include "client/upstream/response_splice.hpp"
#include "client/upstream/splice_pipes.hpp"
#include "handlers/engine/splice_sink.hpp"

namespace tiffany::proxy {

Task<Spliced> splice_response(Attempt& attempt, http::Response& response, UpstreamServerMetrics& metrics) {
  ClientExchange& exchange = *attempt.exchange;
  auto* sink = dynamic_cast<SpliceSink*>(response.sink());
  if (sink == nullptr || !upstream::ResponseSplice::possible(exchange)) co_return Spliced::not_applied;
  const SpliceTarget target = co_await sink->begin_splice(response);
  if (target.gone) co_return Spliced::done;  // dropping the exchange closes the upstream connection
  if (target.socket < 0) co_return Spliced::not_applied;  // HTTP/2, TLS, compressed, chunked or bodiless: the caller copies
  // Why taken after the head: HTTP/2 and TLS answers never splice, so they take no pipe.
  std::optional<upstream::PipeLease> pipe = upstream::SplicePipes::for_this_thread().take();
  if (!pipe) co_return Spliced::not_applied;  // out of descriptors or pipe memory: copy
  // Why first and through the connection: these bytes are in our buffer,
  // not in the upstream socket, and they come before the rest.
  while (upstream::ResponseSplice::buffered(exchange) > 0) {
    const ClientBodyChunk chunk = co_await exchange.read();
    if (chunk.status != ClientBodyChunk::Status::data) co_return Spliced::not_applied;  // its end or error: the caller's read says so
    const http::Delivery written = co_await response.write(chunk.bytes);
    if (written == http::Delivery::closed) co_return Spliced::done;
  }
  if (!upstream::ResponseSplice::possible(exchange)) co_return Spliced::not_applied;  // the body ended in what was read
  std::uint64_t spliced = 0;
  // Why counted by a guard: a client that hangs up cancels this task in the
  // middle of the splice, and the bytes that went still count.
  struct Count {
    SpliceSink& sink;
    UpstreamServerMetrics& metrics;
    const std::uint64_t& spliced;
    ~Count() {
      sink.spliced(spliced);
      UpstreamServerMetrics::add(metrics.spliced_bytes, spliced);
    }
  } const count{*sink, metrics, spliced};
  const upstream::SpliceOutcome outcome =
      co_await upstream::ResponseSplice::splice_rest(exchange, target.socket, *pipe, sink->write_timeout(), spliced);
  switch (outcome.end) {
    case upstream::SpliceOutcome::End::done: co_return Spliced::done;
    case upstream::SpliceOutcome::End::client_failed:
    case upstream::SpliceOutcome::End::client_timeout:
      sink->splice_failed(outcome.end == upstream::SpliceOutcome::End::client_timeout);
      co_return Spliced::done;
    case upstream::SpliceOutcome::End::upstream_failed: break;
  }
  if (attempt.lease) attempt.lease->fail();
  metrics.count_error(error_kind(exchange.error()));
  // Why cut: the head is out, so only ending the connection tells the client the body is wrong.
  response.cut("the upstream response was cut: " + exchange.error().message);
  co_return Spliced::done;
}

}  // namespace tiffany::proxy

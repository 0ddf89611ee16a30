// TlsTransport: a park for ClientHellos, the handshake under its deadline,
// bursts of service, and a park for idle sessions.
#include "server/transport/tls/tls_transport.hpp"

#include <cstring>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/handlers/server_stats.hpp>

#include "net/engine/tls/tls_stream.hpp"
#include "server/log/error_log.hpp"
#include "server/transport/format_peer.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany::tls {
namespace {

void count_failed_handshake(const std::string& peer, bool timed_out) noexcept {
  add_stat(Stat::tls_handshake_failures);
  if (timed_out) count_timeout(TimeoutStage::handshake);
  if (error_log().enabled(LogLevel::debug)) {
    error_log().log(LogLevel::debug, "TLS handshake with %s %s", peer.c_str(), timed_out ? "timed out" : "failed");
  }
}

// The hello park's OnTimeout: the client said nothing for the whole handshake timeout.
void count_silent_timeout(const ParkedConnection& connection) noexcept {
  count_failed_handshake(connection.peer, true);
}

TlsStream& stream_of(ParkedConnection& connection) noexcept {
  return static_cast<TlsStream&>(*connection.session);  // only this transport parks in its parks
}

}  // namespace

TlsTransport::TlsTransport(std::shared_ptr<const TlsContext> context, std::unique_ptr<StreamProtocol> protocol,
                           ConnectionTracker* tracker)
    : context_(std::move(context)),
      protocol_(std::move(protocol)),
      hellos_(
          context_->handshake_timeout(), tracker,
          [this](ParkedConnection&& connection, ReadLease&& hello, Scheduler::Clock::time_point accepted) {
            return handshake(std::move(connection), std::move(hello), accepted);
          },
          &count_silent_timeout),
      idle_(protocol_->idle_timeout(), tracker,
            [this](ParkedConnection&& connection, ReadLease&& ciphertext, Scheduler::Clock::time_point) {
              return serve_input(std::move(connection), std::move(ciphertext));
            }) {
  name_ = std::strcmp(protocol_->name(), "http") == 0 ? "https" : std::string(protocol_->name()) + " over TLS";
}

Task<void> TlsTransport::serve(UniqueFd socket, sockaddr_storage peer, ConnectionTracker::Slot slot) {
  hellos_.park(ParkedConnection{std::move(socket), format_peer(peer), std::move(slot), nullptr, nullptr, false});
  co_return;
}

Task<void> TlsTransport::adopt(ParkedConnection connection, ReadLease first, Scheduler::Clock::time_point) {
  if (first.size() == 0) {
    hellos_.park(std::move(connection));
    co_return;
  }
  // Why from now, as the hello park counts too: the handshake timeout runs
  // from the PROXY header's end, whichever read brought the ClientHello.
  co_await handshake(std::move(connection), std::move(first), Scheduler::current().now());
}

void TlsTransport::close_idle() noexcept {
  hellos_.close_all();
  idle_.close_all();
}

Task<void> TlsTransport::handshake(ParkedConnection connection, ReadLease hello,
                                   Scheduler::Clock::time_point accepted) {
  bool established = false;
  bool timed_out = false;
  {
    Deadline deadline(accepted + context_->handshake_timeout());
    // Why only now: a connection that has sent nothing holds no TLS state.
    connection.session =
        std::make_unique<TlsStream>(connection.socket.get(), context_->default_context(), std::move(hello));
    Timed<bool> handshake = co_await deadline.guard(stream_of(connection).handshake());
    timed_out = handshake.timed_out();
    established = !timed_out && *handshake;
  }  // the handshake's deadline ends here; the protocol arms its own
  if (!established) {
    count_failed_handshake(connection.peer, timed_out);
    co_return;
  }
  add_stat(Stat::tls_handshakes_total);
  co_await serve_bursts(std::move(connection));
}

Task<void> TlsTransport::serve_input(ParkedConnection connection, ReadLease ciphertext) {
  stream_of(connection).add_input(std::move(ciphertext));
  co_await serve_bursts(std::move(connection));
}

Task<void> TlsTransport::serve_bursts(ParkedConnection connection) {
  TlsStream& stream = stream_of(connection);
  Deadline deadline = Deadline::unarmed();
  ConnectionContext context{deadline, connection.peer, true, connection.proxy.get(),
                            !connection.served};
  connection.served = true;
  context.slot = &connection.slot;
  // Why only while input is buffered: otherwise the next bytes may be a long
  // way off, and the connection waits for them in the park, not in a task.
  while (stream.has_buffered_input()) {
    // The rest of a record cut short is awaited here, under the idle timeout.
    // Why not in the park: there each byte would restart the clock, and a
    // peer trickling a record byte by byte could hold the connection forever.
    deadline.rearm_after(protocol_->idle_timeout());
    ReadLease input;
    Timed<IoResult> read = co_await within(deadline, TimeoutStage::idle, stream.read_pooled(input));
    if (read.timed_out()) co_return;
    const IoResult got = *read;
    deadline.disarm();    // the protocol arms it for each stage that waits
    if (!got) co_return;  // reset, or a TLS error (our alert is sent)
    if (got.bytes() == 0) {
      stream.finish();  // the peer is done sending: end our side too (close_notify)
      co_return;
    }
    const AfterBurst after = co_await protocol_->serve(stream, context, std::move(input));
    if (after == AfterBurst::close) co_return;
    context.first_burst = false;
  }
  idle_.park(std::move(connection));
}

}  // namespace tiffany::tls

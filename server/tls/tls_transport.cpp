// TlsTransport: handshake with a deadline, counting, then the protocol.
#include "server/tls/tls_transport.hpp"

#include <cstring>

#include "coro/deadline.hpp"
#include "coro/task_canceled.hpp"
#include "handlers/server_stats.hpp"
#include "server/error_log.hpp"
#include "server/serve_stream.hpp"
#include "server/tls/tls_stream.hpp"

namespace tiffany::tls {

TlsTransport::TlsTransport(std::shared_ptr<const TlsContext> context, std::unique_ptr<StreamProtocol> protocol,
                           ConnectionTracker* tracker)
    : context_(std::move(context)), protocol_(std::move(protocol)), tracker_(tracker) {
  name_ = std::strcmp(protocol_->name(), "http") == 0 ? "https" : std::string(protocol_->name()) + " over TLS";
}

Task<void> TlsTransport::serve(UniqueFd socket, sockaddr_storage peer, ConnectionTracker::Slot slot) {
  (void)slot;  // held until the connection closes
  TlsStream stream(std::move(socket), *context_);
  ServerStats& stats = server_stats();
  {
    Deadline deadline = Deadline::after(context_->handshake_timeout());
    bool established = false;
    bool timed_out = false;
    try {
      established = co_await stream.handshake();
    } catch (const TaskCanceled&) {
      if (!deadline.expired()) throw;  // canceled for another reason (shutdown): unwind
      timed_out = true;
    }
    if (!established) {
      stats.tls_handshake_failures.fetch_add(1, std::memory_order_relaxed);
      if (timed_out) stats.tls_handshake_timeouts.fetch_add(1, std::memory_order_relaxed);
      if (error_log().enabled(LogLevel::debug)) {
        error_log().log(LogLevel::debug, "TLS handshake with %s %s", format_peer(peer).c_str(),
                        timed_out ? "timed out" : "failed");
      }
      co_return;
    }
  }  // the handshake's deadline ends here; serve_stream arms its own
  stats.tls_handshakes_total.fetch_add(1, std::memory_order_relaxed);
  co_await serve_stream(*protocol_, stream, format_peer(peer), tracker_);
}

}  // namespace tiffany::tls

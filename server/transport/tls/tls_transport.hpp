// TlsTransport: a listener's protocol spoken over TLS.
#pragma once

#include <memory>
#include <string>

#include "server/transport/idle_park.hpp"
#include "server/transport/stream_protocol.hpp"
#include "server/transport/tls/tls_context.hpp"
#include "server/transport/transport.hpp"

namespace tiffany::tls {

/// Serves each accepted connection over TLS, keeping it a task only while
/// it has work, like PlainTransport:
///  - until its first bytes it waits in a park for ClientHellos, holding no
///    TLS state at all (no SSL, no buffer): a client that connects and says
///    nothing costs the socket and a park entry;
///  - then a task makes the TlsStream (the SSL) and runs the handshake;
///  - between requests it waits in a second park, holding the TLS session
///    (the SSL and its keys, a few KiB) and no buffer and no task.
/// The handshake timeout runs from the accept, in the first park and then
/// in the task. A failed or timed-out handshake closes the connection and
/// is counted in ServerStats, and logged per connection only at debug
/// level; a connection that closes before sending a byte is not a handshake.
class TlsTransport final : public Transport {
 public:
  /// `context` is shared by every worker's transport for this listener, so
  /// session tickets and the session cache work whichever worker a client reaches.
  TlsTransport(std::shared_ptr<const TlsContext> context, std::unique_ptr<StreamProtocol> protocol,
               ConnectionTracker* tracker);
  Task<void> serve(UniqueFd socket, sockaddr_storage peer, ConnectionTracker::Slot slot) override;
  /// After a PROXY header: the ClientHello's first bytes, or none yet (then
  /// the connection waits in the hello park). Either way the handshake
  /// timeout runs afresh from the header's end.
  Task<void> adopt(ParkedConnection connection, ReadLease first, Scheduler::Clock::time_point accepted) override;
  void close_idle() noexcept override;
  /// "https", or "<protocol> over TLS".
  const char* name() const noexcept override { return name_.c_str(); }

 private:
  /// The ClientHello's first bytes arrived: handshake, then serve.
  Task<void> handshake(ParkedConnection connection, ReadLease hello, Scheduler::Clock::time_point accepted);
  /// Ciphertext arrived on an idle connection: serve it.
  Task<void> serve_input(ParkedConnection connection, ReadLease ciphertext);
  /// Serves requests while input is buffered, then parks the connection idle.
  Task<void> serve_bursts(ParkedConnection connection);

  std::shared_ptr<const TlsContext> context_;
  std::unique_ptr<StreamProtocol> protocol_;
  std::string name_;
  IdlePark hellos_;  // before the ClientHello: closed at the handshake timeout
  IdlePark idle_;    // established, between requests: closed at the protocol's idle timeout
};

}  // namespace tiffany::tls

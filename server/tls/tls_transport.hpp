// TlsTransport: a listener's protocol spoken over TLS.
#pragma once

#include <memory>
#include <string>

#include "server/connection_protocol.hpp"
#include "server/stream_protocol.hpp"
#include "server/tls/tls_context.hpp"

namespace tiffany::tls {

/// Wraps each accepted socket in a TlsStream, runs the handshake under the
/// listener's handshake timeout, then serves the stream with `protocol`
/// (serve_stream: the connection keeps its task, as its session lives in
/// it). A failed
/// or timed-out handshake closes the connection and is counted in
/// ServerStats, never logged per connection.
class TlsTransport final : public ConnectionProtocol {
 public:
  /// `context` is shared by every worker's transport for this listener, so
  /// session tickets and the session cache work whichever worker a client reaches.
  TlsTransport(std::shared_ptr<const TlsContext> context, std::unique_ptr<StreamProtocol> protocol,
               ConnectionTracker* tracker);
  Task<void> serve(UniqueFd socket, sockaddr_storage peer, ConnectionTracker::Slot slot) override;
  /// "https", or "<protocol> over TLS".
  const char* name() const noexcept override { return name_.c_str(); }

 private:
  std::shared_ptr<const TlsContext> context_;
  std::unique_ptr<StreamProtocol> protocol_;
  ConnectionTracker* tracker_;
  std::string name_;
};

}  // namespace tiffany::tls

// ProxyProtocolTransport: reads a connection's PROXY protocol header, then hands it to the listener's transport.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "conf/cidr_range.hpp"
#include "server/transport/idle_park.hpp"
#include "server/transport/transport.hpp"

namespace tiffany {

/// Wraps a listener's transport (plain or TLS) when it sets
/// `proxy_protocol`. Per connection, before TLS or HTTP see a byte:
///  - a connection whose socket peer is not in `trusted` is closed at once,
///    unread (like HAProxy's `accept-proxy` on a missing header: nothing
///    but a PROXY header may come from a trusted proxy, and nothing at all
///    from anyone else);
///  - otherwise it waits in a park, as an idle connection does (no task, no
///    buffer), for its first bytes, peeking at them (MSG_PEEK); then a task
///    parses the header (v1 or v2) and receives exactly its bytes, under
///    `header_timeout` counted from the accept; a malformed header, a close
///    or the timeout closes the connection;
///  - the client the header names becomes the connection's peer (access
///    log, request.peer, X-Forwarded-For); v2 LOCAL and v1 UNKNOWN keep the
///    socket's peer (HAProxy's health checks); the rest of the header
///    (socket peer, TLVs) rides along as ProxyInfo;
///  - no byte past the header is read: what follows stays in the socket
///    for `inner` (TLS's ClientHello, the HTTP request).
/// Keep-alive requests never come back here: the cost is per connection.
class ProxyProtocolTransport final : public Transport {
 public:
  ProxyProtocolTransport(std::unique_ptr<Transport> inner, std::vector<CidrRange> trusted,
                         std::chrono::milliseconds header_timeout, ConnectionTracker* tracker, std::string listener);
  Task<void> serve(UniqueFd socket, sockaddr_storage peer, ConnectionTracker::Slot slot) override;
  /// Passes a connection straight to the inner transport (a header was read already).
  Task<void> adopt(ParkedConnection connection, ReadLease first, Scheduler::Clock::time_point accepted) override;
  void close_idle() noexcept override;
  const char* name() const noexcept override { return inner_->name(); }

 private:
  Task<void> read_header(ParkedConnection connection, ReadLease first, Scheduler::Clock::time_point accepted);
  bool trusted(const sockaddr_storage& peer) const noexcept;
  /// One kind of closed connection, logged at most once every 10 s.
  struct Warning {
    std::optional<Scheduler::Clock::time_point> last_line;
    std::size_t since_line = 0;  // closed since, not logged
  };
  /// Logs `warning`'s line (naming `peer`, `what` and `detail`), or counts it.
  void warn(Warning& warning, const char* what, const std::string& peer, const char* detail);

  std::unique_ptr<Transport> inner_;
  std::vector<CidrRange> trusted_;
  std::chrono::milliseconds header_timeout_;
  std::string listener_;
  IdlePark headers_;  // accepted, waiting for the header's first bytes
  Warning untrusted_, malformed_;
};

}  // namespace tiffany

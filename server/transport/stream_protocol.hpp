// StreamProtocol: what runs over an established connection (echo, HTTP),
// whatever carries it: a plain socket or TLS.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include <tiffany/coro/task.hpp>
#include <tiffany/reactor/read_lease.hpp>

#include <tiffany/net/byte_stream.hpp>
#include "server/transport/connection_tracker.hpp"
#include "server/transport/proxy_info.hpp"

namespace tiffany {

class ConnectionHold;
class Deadline;

/// What a protocol gets to know about the connection it serves.
struct ConnectionContext {
  /// The serving task's deadline: the protocol arms it for each stage
  /// (headers, body, handler, write); a stage that overruns is canceled.
  Deadline& deadline;
  /// "127.0.0.1:5000" or "[::1]:5000".
  const std::string& peer;
  /// True when the client reached us over TLS (an https listener).
  bool tls;
  /// The PROXY protocol header's account of the connection (the socket's
  /// own peer, the TLVs), or null on a listener without `proxy_protocol`.
  /// With one, `peer` above is the client the header named, not the
  /// socket's peer (except after v2 LOCAL or v1 UNKNOWN, which name none).
  const ProxyInfo* proxy = nullptr;
  /// True for a connection's first burst: its first bytes are in `first`
  /// (how a cleartext HTTP/2 connection is told by its preface).
  bool first_burst = false;
  /// The connection's count in the worker's and listener's limits, for
  /// what counts as a connection of its own (a WebSocket over HTTP/2); null
  /// where none is kept (tests).
  const ConnectionTracker::Slot* slot = nullptr;
  /// Where the protocol may wait for the connection's next input in this
  /// task once it has answered everything (a busy plain connection, see
  /// KeepAliveHold), instead of returning AfterBurst::idle at once; null
  /// where the connection always parks or keeps its task anyway.
  ConnectionHold* hold = nullptr;
};

/// How a burst of serving left the connection.
enum class AfterBurst : std::uint8_t {
  idle,   ///< nothing owed, nothing half read: park it until its next input
  close,  ///< it must close (the peer left, an error, Connection: close, a drain, HTTP/2's end)
};

/// One per listener and worker, shared by its connections; must outlive
/// them. A protocol serves a connection in bursts: a transport waits for
/// input on an idle connection (holding no buffer, see IdlePark), then calls
/// serve() with the bytes that arrived.
class StreamProtocol {
 public:
  virtual ~StreamProtocol() = default;
  /// Serves `first` and whatever input it takes to finish what it started
  /// (the rest of a request, its body), writes the answers, and says
  /// whether the connection is idle again or must close. `stream` outlives
  /// the call.
  virtual Task<AfterBurst> serve(ByteStream& stream, ConnectionContext& context, ReadLease first) = 0;
  /// How long an idle connection may wait for its next input.
  virtual std::chrono::milliseconds idle_timeout() const noexcept = 0;
  /// "echo", "http": for start-up lines.
  virtual const char* name() const noexcept = 0;
};

}  // namespace tiffany

// serve_stream: a whole connection in one task: wait for input, serve it, repeat.
#pragma once

#include <string>

#include <tiffany/coro/task.hpp>

#include <tiffany/net/byte_stream.hpp>
#include "server/transport/stream_protocol.hpp"

namespace tiffany {

class ConnectionTracker;

/// Serves `stream` with `protocol` until the peer closes, the protocol asks
/// to close, or the connection stays idle past protocol.idle_timeout().
/// Between bursts it waits with ByteStream::read_pooled, holding no buffer.
/// For a connection that keeps its task between bursts (the server's
/// transports do not: plain and TLS connections wait in an IdlePark
/// instead). With `tracker`, an idle connection closes after the drain's
/// grace once shutdown begins.
Task<void> serve_stream(StreamProtocol& protocol, ByteStream& stream, std::string peer,
                        ConnectionTracker* tracker);

}  // namespace tiffany

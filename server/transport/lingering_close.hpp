// lingering_close: after a last response, drop what the peer still sends for a while (nginx's lingering_close).
#pragma once

#include <chrono>
#include <cstdint>

#include <tiffany/coro/task.hpp>

#include <tiffany/net/byte_stream.hpp>

namespace tiffany {

class ConnectionTracker;
class Deadline;

/// How long, and how much, a closing connection keeps reading.
struct LingerLimits {
  std::chrono::milliseconds total{5'000};  // in all, from the start; zero: no lingering
  std::chrono::milliseconds read{2'000};   // waiting for the peer's next bytes
  std::uint64_t bytes = 64 * 1024 * 1024;  // dropped in all; lingering stops once past it
};

/// Call after ByteStream::finish() (our direction is closed, the last
/// response is written). Reads and drops the peer's bytes until it closes
/// its side, errs, falls silent for `limits.read`, `limits.total` has
/// passed or more than `limits.bytes` were dropped; the caller then closes.
///
/// Why: closing a socket with unread input makes the kernel send a reset,
/// which can destroy our last response before the peer reads it (a client
/// still uploading the body we refused gets ECONNRESET instead of its 413).
/// Reading until the peer is done lets the response and our FIN arrive first.
///
/// Holds a read buffer only while bytes are in hand (ByteStream::discard_some).
/// `deadline` is the task's; it is rearmed for each read. With `tracker`, a
/// drain cuts lingering to the drain's idle grace. Cancellation for other
/// reasons (shutdown) propagates.
Task<void> lingering_close(ByteStream& stream, Deadline& deadline, LingerLimits limits, ConnectionTracker* tracker);

}  // namespace tiffany

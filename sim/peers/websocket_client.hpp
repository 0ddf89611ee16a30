// Simulated WebSocket clients: echo clients, pub/sub subscribers and publishers, leaving ones.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <tiffany/coro/task.hpp>

#include "sim/world.hpp"

namespace tiffany::sim {

/// What a set of WebSocket clients saw.
struct WebSocketTally {
  int upgraded = 0;    // handshakes answered 101 with the right Sec-WebSocket-Accept
  int refused = 0;     // connects or handshakes that failed
  int echoed = 0;      // messages echoed back byte for byte, with their type
  int delivered = 0;   // pub/sub messages a subscriber received, in the order published
  int subscribed = 0;  // subscribers whose subscription the server confirmed
  int settled = 0;     // subscribers subscribed, or failed before it (what a publisher waits for)
  int published = 0;   // messages publishers sent
  int wrong = 0;       // anything else: a wrong echo, a message out of order, a bad frame
  int cut = 0;         // connections that ended before the client was done
  int closed = 0;      // close handshakes completed (our close answered, then the server's FIN)
  int left = 0;        // clients that left without a close handshake, on purpose
  int ended = 0;       // clients whose task has ended, however
};

/// Connects, upgrades at `path`, sends `messages` messages of seeded size
/// and type (text or binary, masked, some in several frames) each after a
/// seeded pause, checks each echo, then closes with the close handshake
/// (or, when `leave_early`, closes the socket after a seeded number of
/// messages without one).
Task<void> websocket_echo_client(World& world, const char* ip, std::uint16_t port, std::string path, int messages,
                                 bool leave_early, WebSocketTally& tally);

/// Connects, upgrades at `path`, subscribes to `channel`, and receives
/// `expected` messages, checking that their data are 0, 1, 2, ... in that
/// order (one publisher's order); then closes with the close handshake.
Task<void> websocket_subscriber(World& world, const char* ip, std::uint16_t port, std::string path, std::string channel,
                                int expected, WebSocketTally& tally);

/// Connects, upgrades at `path`, waits until `may_publish()` (the
/// scenario's word: every subscriber settled, a Redis back after a drop),
/// then publishes data 0 to `messages` - 1 on `channel` with seeded pauses;
/// then closes with the close handshake.
Task<void> websocket_publisher(World& world, const char* ip, std::uint16_t port, std::string path, std::string channel,
                               int messages, std::function<bool()> may_publish, WebSocketTally& tally);

}  // namespace tiffany::sim

// Simulated HTTP/2 clients: many streams on a connection, resets, small windows, leaving mid-stream.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <tiffany/coro/task.hpp>

#include "sim/world.hpp"

namespace tiffany::sim {

/// What a set of HTTP/2 clients saw, stream by stream.
struct Http2Tally {
  int answered = 0;       // streams answered 200 with the body expected
  int wrong = 0;          // streams answered otherwise, or reset by the server with an error
  int refused = 0;        // streams the server refused (REFUSED_STREAM, or past a GOAWAY's last stream): a drain may
  int canceled = 0;       // streams this client reset itself before their answer was complete
  int retried = 0;        // streams refused before the client knew the server's stream limit, sent again
  int cut = 0;            // streams still open when the connection ended (or whose connect failed)
  int goaway_errors = 0;  // GOAWAYs with an error code, or a server that broke the protocol
  int finished = 0;       // clients whose every stream closed, that said GOAWAY and left
  int left = 0;           // clients that left on purpose (leaving_http2_client)
  int ended = 0;          // clients whose task has ended, however
};

/// Request `i` of a client: method, path, body to send, and the body its answer must carry.
struct Http2Request {
  std::string method;
  std::string path;
  std::string body;
  std::string expected;
};
using Http2Plan = std::function<Http2Request(int i)>;

/// How one client behaves; the scenario draws it from the seed.
struct Http2ClientOptions {
  int streams = 1;                          ///< requests on the connection, opened in seeded batches
  std::uint32_t window = 65535;             ///< SETTINGS_INITIAL_WINDOW_SIZE it announces
  bool slow_reader = false;                 ///< credits DATA back only after a seeded pause (window games)
  int cancel_per_million = 0;               ///< chance that a stream is reset (CANCEL) after a seeded pause
  std::chrono::milliseconds max_pause{30};  ///< between batches, and before a reset or a credit
};

/// Connects to `ip`:`port`, speaks HTTP/2 by prior knowledge (nghttp2's
/// client session), sends `options.streams` requests of `plan` in seeded
/// batches (beyond the server's MAX_CONCURRENT_STREAMS they wait their
/// turn), resets some, checks every answer, then says GOAWAY and closes.
/// (`ip` a literal; `world` and `tally` outlive the task.)
Task<void> http2_client(World& world, const char* ip, std::uint16_t port, Http2ClientOptions options, Http2Plan plan,
                        Http2Tally& tally);

/// Connects, sends a seeded prefix of a preface, SETTINGS and a few
/// requests of `plan` (maybe all of it), may read a little, and leaves
/// (closes, maybe after a pause). The server must let go of the connection
/// and its streams either way.
Task<void> leaving_http2_client(World& world, const char* ip, std::uint16_t port, Http2Plan plan, Http2Tally& tally);

}  // namespace tiffany::sim

// ResponseSplice: the rest of a proxied response body from the upstream's socket into the client's, by splice.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include <tiffany/client/client_exchange.hpp>
#include <tiffany/coro/task.hpp>

#include "client/upstream/splice_pipes.hpp"

namespace tiffany::upstream {

/// How a splice of a response body ended.
struct SpliceOutcome {
  enum class End : std::uint8_t {
    done,             ///< the body went whole; the exchange finished (its connection pooled if keep-alive)
    upstream_failed,  ///< the upstream closed early, stalled or failed: the exchange's error() says which
    client_failed,    ///< the client's socket failed (it left)
    client_timeout,   ///< the client took nothing for `write_timeout`
  };
  End end = End::done;
  std::uint64_t bytes = 0;  ///< body bytes that went into the client's socket by splice
};

/// Reaches into a ClientExchange (its friend) for the proxy's splice, which
/// moves body bytes past ClientExchange::read(): no copy through user space.
/// Not in the SDK: only the built-in proxy splices.
class ResponseSplice {
 public:
  /// True when the rest of the body may go by splice: the exchange's
  /// connection is a plain socket (not TLS), the body is framed by
  /// Content-Length and bytes of it are still to come. (A chunked body stays
  /// on read(): its framing is parsed, so its bytes must pass through us.)
  static bool possible(const ClientExchange& exchange) noexcept;
  /// Body bytes already read from the socket and not yet handed out:
  /// read() returns them without waiting. Write them to the client before
  /// splicing the rest.
  static std::size_t buffered(const ClientExchange& exchange) noexcept;
  /// Moves the rest of the body (after buffered() is 0) from the upstream's
  /// socket through `pipe` into the socket `client`, a pipe's worth at a
  /// time. Each wait for the upstream is bounded by the exchange's read
  /// timeout (and its total), each wait for the client by `write_timeout`.
  /// Both sockets are made non-blocking (splice takes its blocking from the
  /// socket). `spliced` grows by each piece that reaches the client socket,
  /// as it goes, so the caller can count them even when the task is
  /// canceled mid-body (the client's hang-up). On anything but `done` the exchange
  /// has failed and its connection is closed, never pooled: its body was not
  /// read to the end. A failure or a cancellation may leave bytes in the
  /// pipe: its lease then closes it rather than give it back.
  static Task<SpliceOutcome> splice_rest(ClientExchange& exchange, int client, PipeLease& pipe,
                                         std::chrono::milliseconds write_timeout, std::uint64_t& spliced);
};

}  // namespace tiffany::upstream

// The accept loop: Accept, tune the socket, Spawn the protocol's handler.
#include "server/accept_loop.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <system_error>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/spawn.hpp>
#include <tiffany/reactor/accept.hpp>

#include "handlers/internal/metrics.hpp"
#include "server/log/error_log.hpp"
#include "server/transport/connection_tracker.hpp"
#include "server/transport/format_peer.hpp"
#include "server/transport/listener_limits.hpp"

namespace tiffany {
namespace {

constexpr std::chrono::milliseconds kResourceBackoff{50};
constexpr std::chrono::seconds kBackoffLogInterval{10};  // at most one back-off (or refusal) line per loop this often

bool is_resource_shortage(int error) {
  return error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM;
}

bool is_fatal(int error) { return error == EBADF || error == EINVAL || error == ENOTSOCK || error == EOPNOTSUPP; }

}  // namespace

Task<void> accept_loop(int listen_fd, Transport& protocol, ConnectionTracker& tracker,
                       ListenerLimits& limits) {
  std::optional<std::chrono::steady_clock::time_point> last_backoff_line;
  std::optional<std::chrono::steady_clock::time_point> last_refusal_line;
  for (;;) {
    // Why both: the worker's total is shared by its listeners; a listener's
    // own limit keeps one listener from taking all of it.
    for (;;) {
      co_await tracker.wait_for_room();
      if (!limits.full()) break;
      co_await limits.wait_for_room();
    }
    sockaddr_storage peer{};
    socklen_t peer_length = sizeof peer;
    const IoResult accepted = co_await Accept{listen_fd, reinterpret_cast<sockaddr*>(&peer), &peer_length};
    if (!accepted) {
      if (is_fatal(accepted.error())) throw std::system_error(accepted.error(), std::system_category(), "accept");
      // Why: with no descriptors left, accepting again at once fails again at
      // once; wait for connections to close instead of burning the CPU.
      if (is_resource_shortage(accepted.error())) {
        add_stat(Stat::accept_backoffs);
        const auto now = std::chrono::steady_clock::now();
        if (!last_backoff_line || now - *last_backoff_line >= kBackoffLogInterval) {
          last_backoff_line = now;
          error_log().log(LogLevel::warn,
                          "accept failed: %s; pausing accepts for %lld ms (repeats within %lld s are only "
                          "counted in the metrics)",
                          std::strerror(accepted.error()), static_cast<long long>(kResourceBackoff.count()),
                          static_cast<long long>(kBackoffLogInterval.count()));
        }
        co_await Sleep{kResourceBackoff};
      }
      continue;  // ECONNABORTED and friends concern one client only
    }
    UniqueFd socket(accepted.value());
    PeerConnectionLimit::Entry* counted = nullptr;
    if (PeerConnectionLimit* per_address = limits.per_address()) {
      counted = per_address->admit(peer);
      if (counted == nullptr) {
        // Why close at once, with no 503: refusing must cost this client's
        // flood nothing (no task, no buffer, no reading its request), and
        // the same answer then fits echo listeners, which have no 503.
        add_stat(Stat::connections_refused);
        const auto now = std::chrono::steady_clock::now();
        if (!last_refusal_line || now - *last_refusal_line >= kBackoffLogInterval) {
          last_refusal_line = now;
          error_log().log(LogLevel::warn,
                          "listener \"%s\" refused a connection from %s: that address has %zu open "
                          "(limits.max_connections_per_ip; repeats within %lld s are only counted in the metrics)",
                          limits.listener().c_str(), format_peer(peer).c_str(), per_address->limit(),
                          static_cast<long long>(kBackoffLogInterval.count()));
        }
        continue;  // `socket` closes here
      }
    }
    const int one = 1;
    ::setsockopt(socket.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    co_await Spawn{protocol.serve(std::move(socket), peer, ConnectionTracker::Slot(tracker, &limits, counted))};
  }
}

}  // namespace tiffany

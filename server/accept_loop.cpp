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

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/spawn.hpp>
#include <tiffany/reactor/accept.hpp>
#include <tiffany/reactor/socket_calls.hpp>

#include "handlers/engine/metrics.hpp"
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

// Serves one accepted connection (a task of its own), unless its address has
// the listener's per-address limit open: then it is closed at once, with no
// 503. Why: refusing must cost this client's flood nothing (no task, no
// buffer, no reading its request), and the same answer then fits echo
// listeners, which have no 503.
void admit(UniqueFd socket, const sockaddr_storage& peer, Transport& protocol, ConnectionTracker& tracker,
           ListenerLimits& limits, std::optional<std::chrono::steady_clock::time_point>& last_refusal_line) {
  PeerConnectionLimit::Entry* counted = nullptr;
  if (PeerConnectionLimit* per_address = limits.per_address()) {
    counted = per_address->admit(peer);
    if (counted == nullptr) {
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
      return;  // `socket` closes here
    }
  }
  const int one = 1;
  SocketCalls::current().setsockopt(socket.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  (void)Scheduler::current().spawn(
      protocol.serve(std::move(socket), peer, ConnectionTracker::Slot(tracker, &limits, counted)));
}

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
    admit(UniqueFd(accepted.value()), peer, protocol, tracker, limits, last_refusal_line);
  }
}

std::size_t accept_queued(int listen_fd, Transport& protocol, ConnectionTracker& tracker, ListenerLimits& limits,
                          std::size_t most) {
  std::optional<std::chrono::steady_clock::time_point> last_refusal_line;
  std::size_t accepted = 0;
  while (accepted < most) {
    sockaddr_storage peer{};
    socklen_t peer_length = sizeof peer;
    UniqueFd socket(
        SocketCalls::current().accept(listen_fd, reinterpret_cast<sockaddr*>(&peer), &peer_length, SOCK_CLOEXEC));
    if (!socket) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return accepted;  // EAGAIN: none left (or a shortage: the drain must not wait for room)
    }
    ++accepted;
    admit(std::move(socket), peer, protocol, tracker, limits, last_refusal_line);
  }
  return accepted;
}

}  // namespace tiffany

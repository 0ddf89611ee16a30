// The accept loop: Accept, tune the socket, Spawn the protocol's handler.
#include "server/accept_loop.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <system_error>

#include "coro/sleep.hpp"
#include "coro/spawn.hpp"
#include "handlers/metrics.hpp"
#include "reactor/accept.hpp"
#include "server/connection_tracker.hpp"

namespace tiffany {
namespace {

constexpr std::chrono::milliseconds kResourceBackoff{50};

bool is_resource_shortage(int error) {
  return error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM;
}

bool is_fatal(int error) { return error == EBADF || error == EINVAL || error == ENOTSOCK || error == EOPNOTSUPP; }

}  // namespace

Task<void> accept_loop(int listen_fd, ConnectionProtocol& protocol, ConnectionTracker& tracker) {
  for (;;) {
    co_await tracker.wait_for_room();
    sockaddr_storage peer{};
    socklen_t peer_length = sizeof peer;
    const IoResult accepted = co_await Accept{listen_fd, reinterpret_cast<sockaddr*>(&peer), &peer_length};
    if (!accepted) {
      if (is_fatal(accepted.error())) throw std::system_error(accepted.error(), std::system_category(), "accept");
      // Why: with no descriptors left, accepting again at once fails again at
      // once; wait for connections to close instead of burning the CPU.
      if (is_resource_shortage(accepted.error())) {
        Metrics::instance().accept_backoffs.fetch_add(1, std::memory_order_relaxed);
        co_await Sleep{kResourceBackoff};
      }
      continue;  // ECONNABORTED and friends concern one client only
    }
    UniqueFd socket(accepted.value());
    const int one = 1;
    ::setsockopt(socket.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    co_await Spawn{protocol.serve(std::move(socket), peer, ConnectionTracker::Slot(tracker))};
  }
}

}  // namespace tiffany

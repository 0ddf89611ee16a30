// The echo protocol: Recv, then Send until all of it is out, until EOF.
#include "server/echo_protocol.hpp"

#include <cstddef>
#include <optional>

#include "coro/deadline.hpp"
#include "coro/task_canceled.hpp"
#include "handlers/server_stats.hpp"
#include "reactor/recv.hpp"
#include "server/connection_tracker.hpp"
#include "reactor/send.hpp"

namespace tiffany {
namespace {
constexpr std::size_t kEchoBufferSize = 16 * 1024;
}

Task<void> EchoProtocol::serve(UniqueFd socket, sockaddr_storage) {
  const int fd = socket.get();
  char buffer[kEchoBufferSize];  // lives in the coroutine frame: no allocation per message
  Deadline deadline = Deadline::after(idle_);
  std::optional<ConnectionTracker::Membership> membership;
  if (tracker_ != nullptr) membership.emplace(*tracker_, deadline);
  try {
    for (;;) {
      deadline.rearm_after(idle_);
      if (membership) membership->set_idle(true);
      const IoResult received = co_await Recv{fd, buffer, sizeof buffer};
      if (membership) membership->set_idle(false);
      if (!received || received.bytes() == 0) co_return;  // reset, error, or the peer is done sending
      deadline.rearm_after(write_);
      std::size_t sent = 0;
      while (sent < received.bytes()) {
        const IoResult put = co_await Send{fd, buffer + sent, received.bytes() - sent};
        if (!put) co_return;
        sent += put.bytes();
      }
    }
  } catch (const TaskCanceled&) {
    if (!deadline.expired()) throw;  // canceled for another reason (shutdown)
    server_stats().timeouts_total.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace tiffany

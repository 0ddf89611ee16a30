// The echo protocol: read, then write all of it back, until EOF.
#include "server/echo_protocol.hpp"

#include <cstddef>
#include <optional>

#include "coro/deadline.hpp"
#include "coro/task_canceled.hpp"
#include "handlers/server_stats.hpp"
#include "server/connection_tracker.hpp"

namespace tiffany {
namespace {
constexpr std::size_t kEchoBufferSize = 16 * 1024;
}

Task<void> EchoProtocol::serve(ByteStream& stream, sockaddr_storage) {
  char buffer[kEchoBufferSize];  // lives in the coroutine frame: no allocation per message
  Deadline deadline = Deadline::after(idle_);
  std::optional<ConnectionTracker::Membership> membership;
  if (tracker_ != nullptr) membership.emplace(*tracker_, deadline);
  try {
    for (;;) {
      deadline.rearm_after(idle_);
      if (membership) membership->set_idle(true);
      const IoResult received = co_await stream.read(buffer, sizeof buffer);
      if (membership) membership->set_idle(false);
      if (!received) co_return;  // reset or error
      if (received.bytes() == 0) {
        stream.finish();  // the peer is done sending: end our side too (TLS: close_notify)
        co_return;
      }
      deadline.rearm_after(write_);
      const IoResult sent = co_await stream.write(buffer, received.bytes());
      if (!sent) co_return;
    }
  } catch (const TaskCanceled&) {
    if (!deadline.expired()) throw;  // canceled for another reason (shutdown)
    server_stats().timeouts_total.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace tiffany

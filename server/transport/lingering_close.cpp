// lingering_close: a read loop with a total and a per-read deadline, a byte cap, and the drain.
#include "server/transport/lingering_close.hpp"

#include <algorithm>
#include <optional>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/handlers/server_stats.hpp>

#include "server/transport/connection_tracker.hpp"

namespace tiffany {

Task<void> lingering_close(ByteStream& stream, Deadline& deadline, LingerLimits limits, ConnectionTracker* tracker) {
  if (limits.total.count() <= 0) co_return;
  Scheduler& scheduler = Scheduler::current();
  const auto until = scheduler.now() + limits.total;
  // Why a membership marked idle: a drain then shortens the deadline to its
  // idle grace, as for a connection waiting between requests, instead of
  // letting a lingering peer hold the shutdown.
  std::optional<ConnectionTracker::Membership> membership;
  if (tracker != nullptr) {
    membership.emplace(*tracker, deadline);
    membership->set_idle(true);
  }
  std::uint64_t dropped = 0;
  for (;;) {
    const auto now = scheduler.now();
    if (now >= until) co_return;
    if (tracker == nullptr || !tracker->draining()) deadline.rearm(std::min(until, now + limits.read));
    // Why not counted as a timeout: falling silent is how a lingering close should end.
    Timed<IoResult> got = co_await deadline.guard(stream.discard_some());
    if (got.timed_out() || !*got || got->bytes() == 0) co_return;  // silent too long, an error, or the peer is done
    add_stat(Stat::bytes_received, got->bytes());
    dropped += static_cast<std::uint64_t>(got->bytes());
    if (dropped > limits.bytes) co_return;
  }
}

}  // namespace tiffany

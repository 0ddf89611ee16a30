// serve_stream: the idle wait, the idle timeout, and bursts of service.
#include "server/serve_stream.hpp"

#include <optional>

#include "coro/deadline.hpp"
#include "coro/task_canceled.hpp"
#include "handlers/server_stats.hpp"
#include "server/connection_tracker.hpp"

namespace tiffany {

Task<void> serve_stream(StreamProtocol& protocol, ByteStream& stream, std::string peer, ConnectionTracker* tracker) {
  Deadline deadline = Deadline::unarmed();  // armed at the top of each wait
  std::optional<ConnectionTracker::Membership> membership;
  if (tracker != nullptr) membership.emplace(*tracker, deadline);
  ConnectionContext context{deadline, peer};
  for (;;) {
    deadline.rearm_after(protocol.idle_timeout());
    if (membership) membership->set_idle(true);
    ReadLease input;
    IoResult got{0};
    bool timed_out = false;
    try {
      got = co_await stream.read_pooled(input);
    } catch (const TaskCanceled&) {
      if (!deadline.expired()) throw;  // canceled for another reason (shutdown): unwind
      timed_out = true;
    }
    if (timed_out) {
      add_stat(Stat::timeouts_total);
      co_return;
    }
    if (membership) membership->set_idle(false);
    if (!got) co_return;  // reset or error
    if (got.bytes() == 0) {
      stream.finish();  // the peer is done sending: end our side too (TLS: close_notify)
      co_return;
    }
    const bool keep_open = co_await protocol.serve(stream, context, std::move(input));
    if (!keep_open) co_return;
  }
}

}  // namespace tiffany

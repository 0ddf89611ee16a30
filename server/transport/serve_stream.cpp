// serve_stream: the idle wait, the idle timeout, and bursts of service.
#include "server/transport/serve_stream.hpp"

#include <optional>

#include <tiffany/coro/deadline.hpp>

#include "server/transport/connection_tracker.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany {

Task<void> serve_stream(StreamProtocol& protocol, ByteStream& stream, std::string peer, ConnectionTracker* tracker) {
  Deadline deadline = Deadline::unarmed();  // armed at the top of each wait
  std::optional<ConnectionTracker::Membership> membership;
  if (tracker != nullptr) membership.emplace(*tracker, deadline);
  // Why never TLS here: the TLS transport serves its connections in bursts of its own.
  ConnectionContext context{deadline, peer, false, nullptr, true};
  for (;;) {
    deadline.rearm_after(protocol.idle_timeout());
    if (membership) membership->set_idle(true);
    ReadLease input;
    Timed<IoResult> read = co_await within(deadline, TimeoutStage::idle, stream.read_pooled(input));
    if (read.timed_out()) co_return;
    const IoResult got = *read;
    if (membership) membership->set_idle(false);
    if (!got) co_return;  // reset or error
    if (got.bytes() == 0) {
      stream.finish();  // the peer is done sending: end our side too (TLS: close_notify)
      co_return;
    }
    const AfterBurst after = co_await protocol.serve(stream, context, std::move(input));
    if (after == AfterBurst::close) co_return;
  }
}

}  // namespace tiffany

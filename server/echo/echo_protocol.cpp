// The echo protocol: write back what arrived, then wait idle again.
#include "server/echo/echo_protocol.hpp"

#include "server/transport/keep_alive_hold.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany {

Task<AfterBurst> EchoProtocol::serve(ByteStream& stream, ConnectionContext& context, ReadLease first) {
  for (;;) {
    context.deadline.rearm_after(write_);
    const Timed<IoResult> sent =
        co_await within(context.deadline, TimeoutStage::write, stream.write(first.data(), first.size()));
    if (sent.timed_out() || !*sent) co_return AfterBurst::close;
    first.reset();
    if (context.hold == nullptr || !context.hold->may_wait()) co_return AfterBurst::idle;
    const HeldInput next = co_await context.hold->wait(first);  // a busy connection's next bytes, in this task
    if (next == HeldInput::quiet) co_return AfterBurst::idle;
    if (next == HeldInput::closed) co_return AfterBurst::close;
  }
}

}  // namespace tiffany

// The echo protocol: write back what arrived, then wait idle again.
#include "server/echo/echo_protocol.hpp"

#include "server/transport/stage_timeout.hpp"

namespace tiffany {

Task<AfterBurst> EchoProtocol::serve(ByteStream& stream, ConnectionContext& context, ReadLease first) {
  context.deadline.rearm_after(write_);
  Timed<IoResult> sent = co_await within(context.deadline, TimeoutStage::write, stream.write(first.data(), first.size()));
  co_return !sent.timed_out() && static_cast<bool>(*sent) ? AfterBurst::idle : AfterBurst::close;
}

}  // namespace tiffany

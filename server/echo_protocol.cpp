// The echo protocol: write back what arrived, then wait idle again.
#include "server/echo_protocol.hpp"

#include "coro/deadline.hpp"
#include "coro/task_canceled.hpp"
#include "handlers/server_stats.hpp"

namespace tiffany {

Task<bool> EchoProtocol::serve(ByteStream& stream, ConnectionContext& context, ReadLease first) {
  context.deadline.rearm_after(write_);
  bool sent = false;
  try {
    sent = static_cast<bool>(co_await stream.write(first.data(), first.size()));
  } catch (const TaskCanceled&) {
    if (!context.deadline.expired()) throw;  // canceled for another reason (shutdown)
    add_stat(Stat::timeouts_total);  // a peer that does not read
  }
  co_return sent;
}

}  // namespace tiffany

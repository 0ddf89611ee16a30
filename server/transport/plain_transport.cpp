// PlainTransport: park, serve a burst in a task, park again (or, busy, wait in the task).
#include "server/transport/plain_transport.hpp"

#include <tiffany/coro/deadline.hpp>
#include <tiffany/net/socket_stream.hpp>

#include "server/transport/format_peer.hpp"

namespace tiffany {

PlainTransport::PlainTransport(std::unique_ptr<StreamProtocol> protocol, ConnectionTracker* tracker,
                               std::chrono::milliseconds hold_window, std::size_t hold_budget)
    : protocol_(std::move(protocol)),
      park_(protocol_->idle_timeout(), tracker,
            [this](ParkedConnection&& connection, ReadLease&& first, Scheduler::Clock::time_point parked_since) {
              const bool busy = connection.served && hold_.busy(Scheduler::current().now() - parked_since);
              return serve_input(std::move(connection), std::move(first), busy);
            }),
      hold_(protocol_->idle_timeout(), hold_window, hold_budget),
      tracker_(tracker) {}

Task<void> PlainTransport::serve(UniqueFd socket, sockaddr_storage peer, ConnectionTracker::Slot slot) {
  park_.park(ParkedConnection{std::move(socket), format_peer(peer), std::move(slot), nullptr, nullptr, false});
  co_return;
}

Task<void> PlainTransport::adopt(ParkedConnection connection, ReadLease first, Scheduler::Clock::time_point) {
  if (first.size() == 0) {
    park_.park(std::move(connection));
    co_return;
  }
  co_await serve_input(std::move(connection), std::move(first), false);
}

Task<void> PlainTransport::serve_input(ParkedConnection connection, ReadLease first, bool busy) {
  SocketStream stream(connection.socket.get());
  Deadline deadline = Deadline::unarmed();  // the protocol arms it for each stage that waits
  ConnectionHold hold(hold_, tracker_, deadline, stream.fd(), busy);
  ConnectionContext context{deadline, connection.peer, false, connection.proxy.get(),
                            !connection.served};
  connection.served = true;
  context.slot = &connection.slot;
  context.hold = &hold;
  const AfterBurst after = co_await protocol_->serve(stream, context, std::move(first));
  if (after == AfterBurst::close) co_return;
  // After a wait in the task that went quiet (its window, or a drain's grace,
  // over), the idle timeout counts from its start; past a drain's grace the
  // park closes the connection.
  park_.park(std::move(connection), hold.went_quiet_at().value_or(Scheduler::current().now()));
}

}  // namespace tiffany

// PlainTransport: park, serve a burst in a task, park again.
#include "server/transport/plain_transport.hpp"

#include <tiffany/coro/deadline.hpp>

#include "server/transport/format_peer.hpp"
#include <tiffany/net/socket_stream.hpp>

namespace tiffany {

PlainTransport::PlainTransport(std::unique_ptr<StreamProtocol> protocol, ConnectionTracker* tracker)
    : protocol_(std::move(protocol)),
      park_(protocol_->idle_timeout(), tracker,
            [this](ParkedConnection&& connection, ReadLease&& first, Scheduler::Clock::time_point) {
              return serve_input(std::move(connection), std::move(first));
            }) {}

Task<void> PlainTransport::serve(UniqueFd socket, sockaddr_storage peer, ConnectionTracker::Slot slot) {
  park_.park(ParkedConnection{std::move(socket), format_peer(peer), std::move(slot), nullptr, nullptr, false});
  co_return;
}

Task<void> PlainTransport::adopt(ParkedConnection connection, ReadLease first, Scheduler::Clock::time_point) {
  if (first.size() == 0) {
    park_.park(std::move(connection));
    co_return;
  }
  co_await serve_input(std::move(connection), std::move(first));
}

Task<void> PlainTransport::serve_input(ParkedConnection connection, ReadLease first) {
  SocketStream stream(connection.socket.get());
  Deadline deadline = Deadline::unarmed();  // the protocol arms it for each stage that waits
  ConnectionContext context{deadline, connection.peer, false, connection.proxy.get(),
                            !connection.served};
  connection.served = true;
  context.slot = &connection.slot;
  const AfterBurst after = co_await protocol_->serve(stream, context, std::move(first));
  if (after == AfterBurst::idle) park_.park(std::move(connection));
}

}  // namespace tiffany

// PlainTransport: a listener's protocol spoken directly over TCP.
#pragma once

#include <memory>

#include "server/transport/idle_park.hpp"
#include "server/transport/stream_protocol.hpp"
#include "server/transport/transport.hpp"

namespace tiffany {

/// Parks each accepted connection in an IdlePark; when bytes arrive, a task
/// serves them with `protocol` over a SocketStream, then parks the
/// connection again (or closes it). So a plain connection is a task only
/// while it has work.
class PlainTransport final : public Transport {
 public:
  PlainTransport(std::unique_ptr<StreamProtocol> protocol, ConnectionTracker* tracker);
  Task<void> serve(UniqueFd socket, sockaddr_storage peer, ConnectionTracker::Slot slot) override;
  Task<void> adopt(ParkedConnection connection, ReadLease first, Scheduler::Clock::time_point accepted) override;
  void close_idle() noexcept override { park_.close_all(); }
  const char* name() const noexcept override { return protocol_->name(); }

 private:
  Task<void> serve_input(ParkedConnection connection, ReadLease first);

  std::unique_ptr<StreamProtocol> protocol_;
  IdlePark park_;
};

}  // namespace tiffany

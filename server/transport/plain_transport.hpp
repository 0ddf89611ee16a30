// PlainTransport: a listener's protocol spoken directly over TCP.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

#include "server/transport/idle_park.hpp"
#include "server/transport/keep_alive_hold.hpp"
#include "server/transport/stream_protocol.hpp"
#include "server/transport/transport.hpp"

namespace tiffany {

/// Parks each accepted connection in an IdlePark; when bytes arrive, a task
/// serves them with `protocol` over a SocketStream, then parks the
/// connection again (or closes it). So a plain connection is a task only
/// while it has work, or while it is busy enough that its task waits for
/// its next request itself (KeepAliveHold).
class PlainTransport final : public Transport {
 public:
  /// `hold_window`, `hold_budget`: KeepAliveHold's (the defaults but in tests).
  PlainTransport(std::unique_ptr<StreamProtocol> protocol, ConnectionTracker* tracker,
                 std::chrono::milliseconds hold_window = KeepAliveHold::kWindow,
                 std::size_t hold_budget = KeepAliveHold::kDefaultBudget);
  Task<void> serve(UniqueFd socket, sockaddr_storage peer, ConnectionTracker::Slot slot) override;
  Task<void> adopt(ParkedConnection connection, ReadLease first, Scheduler::Clock::time_point accepted) override;
  void close_idle() noexcept override { park_.close_all(); }
  const char* name() const noexcept override { return protocol_->name(); }

 private:
  /// `busy`: the connection's task may wait for its next bytes (KeepAliveHold).
  Task<void> serve_input(ParkedConnection connection, ReadLease first, bool busy);

  std::unique_ptr<StreamProtocol> protocol_;
  IdlePark park_;
  KeepAliveHold hold_;
  ConnectionTracker* tracker_;
};

}  // namespace tiffany

// PlainTransport: a listener's protocol spoken directly over TCP.
#pragma once

#include <memory>

#include "server/connection_protocol.hpp"
#include "server/stream_protocol.hpp"

namespace tiffany {

/// Wraps each accepted socket in a SocketStream and runs `protocol` on it.
class PlainTransport final : public ConnectionProtocol {
 public:
  explicit PlainTransport(std::unique_ptr<StreamProtocol> protocol) noexcept : protocol_(std::move(protocol)) {}
  Task<void> serve(UniqueFd socket, sockaddr_storage peer) override;
  const char* name() const noexcept override { return protocol_->name(); }

 private:
  std::unique_ptr<StreamProtocol> protocol_;
};

}  // namespace tiffany

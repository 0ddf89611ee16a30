// The echo protocol: every byte received is sent back.
#pragma once

#include "server/connection_protocol.hpp"

namespace tiffany {

/// Echoes everything a connection receives until the peer closes its side or
/// the connection fails, then closes the socket. Partial sends are completed
/// before the next receive, so bytes come back in order and none are lost.
class EchoProtocol final : public ConnectionProtocol {
 public:
  Task<void> serve(UniqueFd socket, sockaddr_storage peer) override;
  const char* name() const noexcept override { return "echo"; }
};

}  // namespace tiffany

// The echo protocol: every byte received is sent back.
#pragma once

#include "server/stream_protocol.hpp"

namespace tiffany {

/// Echoes everything a connection receives until the peer closes its side or
/// the connection fails. Each piece is written out in full before the next
/// read, so bytes come back in order and none are lost.
class EchoProtocol final : public StreamProtocol {
 public:
  Task<void> serve(ByteStream& stream, sockaddr_storage peer) override;
  const char* name() const noexcept override { return "echo"; }
};

}  // namespace tiffany

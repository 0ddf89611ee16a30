// The echo protocol: every byte received is sent back.
#pragma once

#include <chrono>

#include "server/transport/stream_protocol.hpp"

namespace tiffany {

/// Echoes everything a connection receives until the peer closes its side or
/// the connection fails. Each piece is written out in full before the next
/// read, so bytes come back in order and none are lost. A connection that
/// sends nothing for `idle`, or does not take our bytes for `write`, is closed.
class EchoProtocol final : public StreamProtocol {
 public:
  EchoProtocol(std::chrono::milliseconds idle, std::chrono::milliseconds write) noexcept : idle_(idle), write_(write) {}
  Task<AfterBurst> serve(ByteStream& stream, ConnectionContext& context, ReadLease first) override;
  std::chrono::milliseconds idle_timeout() const noexcept override { return idle_; }
  const char* name() const noexcept override { return "echo"; }

 private:
  std::chrono::milliseconds idle_;
  std::chrono::milliseconds write_;
};

}  // namespace tiffany

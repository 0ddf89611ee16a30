// The HTTP/1.1 protocol of one listener: its site (routes, limits).
#pragma once

#include "server/http/http_site.hpp"
#include "server/stream_protocol.hpp"

namespace tiffany {

class HttpProtocol final : public StreamProtocol {
 public:
  explicit HttpProtocol(http::HttpSite site) : site_(std::move(site)) {}
  Task<void> serve(ByteStream& stream, sockaddr_storage peer) override;
  const char* name() const noexcept override { return "http"; }

 private:
  http::HttpSite site_;
};

}  // namespace tiffany

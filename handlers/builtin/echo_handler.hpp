// echo: answers any request with its own body and content type.
#pragma once

#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>

namespace tiffany {

/// No params. The reply's Content-Type is the request's (or application/octet-stream).
class EchoHandler final : public Handler {
 public:
  explicit EchoHandler(const HandlerParams&) {}
  Task<void> handle(http::Request& request, http::Response& response) override;
};

}  // namespace tiffany

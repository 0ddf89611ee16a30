// text: a fixed body with a fixed content type (e.g. /plaintext).
#pragma once

#include <string>

#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>

namespace tiffany {

/// Params: `body` (required), `content_type` (default "text/plain"), `status` (default 200).
class TextHandler final : public Handler {
 public:
  explicit TextHandler(const HandlerParams& params);
  Task<void> handle(http::Request& request, http::Response& response) override;

 private:
  std::string body_;
  std::string content_type_;
  int status_;
};

}  // namespace tiffany

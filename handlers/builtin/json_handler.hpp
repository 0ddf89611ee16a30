// json: a fixed JSON document from the config, or a description of the request.
#pragma once

#include <optional>
#include <string>

#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>

namespace tiffany {

/// Params: `document` (any JSON; optional). Without it the reply is
/// {"method", "path", "query", "headers", "params"} of the request, where a
/// repeated header's value is an array.
class JsonHandler final : public Handler {
 public:
  explicit JsonHandler(const HandlerParams& params);
  Task<void> handle(http::Request& request, http::Response& response) override;

 private:
  std::optional<std::string> document_;  // serialised once
};

}  // namespace tiffany

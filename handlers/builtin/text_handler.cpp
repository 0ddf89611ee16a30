// text: a fixed body with a fixed content type.
#include "handlers/builtin/text_handler.hpp"

namespace tiffany {

TextHandler::TextHandler(const HandlerParams& params)
    : body_(params.string("body")),
      content_type_(params.string_or("content_type", "text/plain")),
      status_(static_cast<int>(params.integer_or("status", 200, 200, 599))) {}

Task<void> TextHandler::handle(http::Request&, http::Response& response) {
  response.status = status_;
  response.headers.add("Content-Type", content_type_);
  response.body = body_;
  co_return;
}

}  // namespace tiffany

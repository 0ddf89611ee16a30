// echo: the request body back, with its content type.
#include "handlers/builtin/echo_handler.hpp"

namespace tiffany {

Task<void> EchoHandler::handle(http::Request& request, http::Response& response) {
  response.headers.add("Content-Type", request.headers.get("Content-Type").value_or("application/octet-stream"));
  response.body.swap(request.body);  // the request is done with it
  co_return;
}

}  // namespace tiffany

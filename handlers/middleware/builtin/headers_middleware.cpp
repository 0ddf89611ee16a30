// headers: validated set/remove lists applied to the response.
#include "handlers/middleware/builtin/headers_middleware.hpp"

#include <algorithm>
#include <cctype>

#include <tiffany/http/headers.hpp>

#include "handlers/middleware/builtin/settings.hpp"

namespace tiffany {
namespace {

// Fields the server writes itself: a middleware setting them would be ignored or make a broken head.
bool is_server_field(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* managed : {"date", "server", "content-length", "transfer-encoding", "connection", "x-request-id"}) {
    if (name == managed) return true;
  }
  return false;
}

void check_name(const std::string& key, const std::string& name) {
  if (!http::is_valid_field_name(name)) throw ParamError(key, "\"" + name + "\" is not a valid header field name");
  if (is_server_field(name)) throw ParamError(key, "\"" + name + "\" is written by the server; it cannot be changed");
}

}  // namespace

HeadersMiddleware::HeadersMiddleware(const HandlerParams& params)
    : set_(middleware_settings::string_map(params, "set")),
      remove_(middleware_settings::string_list(params, "remove", {})) {
  for (const auto& [name, value] : set_) {
    check_name("set." + name, name);
    if (http::find_invalid_field_value_byte(value) != std::string_view::npos) {
      throw ParamError("set." + name, "a header value must hold no control character (CR, LF, NUL)");
    }
  }
  for (std::size_t i = 0; i < remove_.size(); ++i) check_name("remove[" + std::to_string(i) + "]", remove_[i]);
  if (set_.empty() && remove_.empty()) throw ParamError("", "expected \"set\" or \"remove\" (or both)");
}

Task<void> HeadersMiddleware::handle(http::Request& request, http::Response& response, Next next) {
  for (const auto& [name, value] : set_) response.headers.set(name, value);
  co_await next(request, response);
  if (response.streaming()) co_return;  // the head is out
  for (const auto& [name, value] : set_) response.headers.set(name, value);
  for (const std::string& name : remove_) response.headers.remove(name);
}

}  // namespace tiffany

// json: a fixed document, or the request reflected as JSON (picojson).
#include "handlers/builtin/json_handler.hpp"

#include <picojson.h>

#include <algorithm>

namespace tiffany {
namespace {

picojson::value describe_request(const http::Request& request) {
  picojson::object headers;
  for (const auto& field : request.headers) {
    // Header names are case-insensitive: "x-tag" repeats "X-Tag".
    auto it = std::find_if(headers.begin(), headers.end(),
                           [&](const auto& entry) { return http::iequals(entry.first, field.name); });
    if (it == headers.end()) {
      headers.emplace(field.name, picojson::value(field.value));
    } else {  // a repeated header: collect its values in an array, in order
      if (!it->second.is<picojson::array>()) it->second = picojson::value(picojson::array{it->second});
      it->second.get<picojson::array>().emplace_back(field.value);
    }
  }
  picojson::object params;
  for (const auto& [name, value] : request.params) params.emplace(name, picojson::value(value));
  picojson::object document;
  document.emplace("method", picojson::value(request.method));
  document.emplace("path", picojson::value(request.path));
  document.emplace("query", picojson::value(request.query));
  document.emplace("headers", picojson::value(std::move(headers)));
  document.emplace("params", picojson::value(std::move(params)));
  return picojson::value(std::move(document));
}

}  // namespace

JsonHandler::JsonHandler(const HandlerParams& params) {
  if (const picojson::value* document = params.json("document")) document_ = document->serialize();
}

Task<void> JsonHandler::handle(http::Request& request, http::Response& response) {
  response.headers.add("Content-Type", "application/json");
  response.body = document_ ? *document_ : describe_request(request).serialize();
  co_return;
}

}  // namespace tiffany

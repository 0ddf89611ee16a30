// JSON bodies (picojson, the library the config uses): reading a request's, writing a response's.
#pragma once

#include <picojson.h>

#include <optional>
#include <string_view>

#include <tiffany/http/http_status.hpp>

namespace tiffany::http {

struct Request;
class Response;

/// Parses `request`'s body as one JSON value (picojson; nesting up to 100
/// levels). On failure `response` becomes the error and nullopt is
/// returned, so a handler writes
///   const std::optional<picojson::value> doc = http::read_json(request, response);
///   if (!doc) co_return;   // 400 or 415 already set
/// 415 when a Content-Type is given that is neither application/json nor
/// `+json`; 400 for an empty body, bad JSON or anything after the value,
/// with a JSON body such as `{"error":"bad JSON at line 2, column 7: ..."}`.
std::optional<picojson::value> read_json(const Request& request, Response& response);

/// Parses `text` as one JSON value; on failure returns nullopt and sets
/// `error` to e.g. "bad JSON at line 1, column 5: expected a value" (exposed for tests).
std::optional<picojson::value> parse_json(std::string_view text, std::string& error);

/// Sets `response`'s status, Content-Type application/json and body `value`.
void write_json(Response& response, const picojson::value& value, Status status = Status::ok);

/// `{"error": message}` with `status`, as read_json answers bad input.
void write_json_error(Response& response, Status status, std::string_view message);

}  // namespace tiffany::http

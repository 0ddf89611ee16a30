// RequestBuilder: fake requests for handler unit tests (part of the SDK's test kit).
#pragma once

#include <picojson.h>

#include <string>
#include <string_view>
#include <vector>

#include <tiffany/http/request.hpp>

namespace tiffany::testkit {

/// Builds an http::Request as the server would hand it to a handler:
///   http::Request request = RequestBuilder("PUT", "/kv/a?ttl=5").json(R"({"v":1})").param("key", "a").build();
/// The target is split into path (percent-decoded, normalised) and query
/// (kept encoded). Route parameters are not matched from a pattern: give
/// them with param(). Nothing here validates like the parser does: a test
/// may build requests the server would refuse.
class RequestBuilder {
 public:
  /// Throws std::invalid_argument for a target whose path is not an absolute path.
  RequestBuilder(std::string method, std::string_view target);

  RequestBuilder& header(std::string_view name, std::string_view value);
  RequestBuilder& body(std::string body);
  /// A body streamed in these pieces, then `ending` (the end, or a failure
  /// such as BodyStatus::too_large): PluginHarness::run hands them to the
  /// handler's `request.body_reader()` one read at a time (a ScriptedBody),
  /// as the server does for a handler that streams; `body` stays empty.
  RequestBuilder& body_in_pieces(std::vector<std::string> pieces, http::BodyStatus ending = http::BodyStatus::end);
  /// Sets the body and Content-Type application/json.
  RequestBuilder& json(std::string_view text);
  RequestBuilder& json(const char* text) { return json(std::string_view(text)); }
  RequestBuilder& json(const picojson::value& value);
  /// Sets an urlencoded form body (`a=1&b=2`, encode it yourself) and its Content-Type.
  RequestBuilder& form(std::string_view encoded);
  /// Adds `name=value` to the Cookie header.
  RequestBuilder& cookie(std::string_view name, std::string_view value);
  /// A route parameter, as the router would capture it (`{"id", "42"}` for `/users/:id`).
  RequestBuilder& param(std::string name, std::string value);
  RequestBuilder& version(int major, int minor);

  /// A copy of the request built so far.
  http::Request build() const { return request_; }
  /// Whether body_in_pieces was called, and with what.
  bool streams_body() const noexcept { return streams_body_; }
  const std::vector<std::string>& body_pieces() const noexcept { return pieces_; }
  http::BodyStatus body_ending() const noexcept { return ending_; }

 private:
  http::Request request_;
  std::string cookies_;
  bool streams_body_ = false;
  std::vector<std::string> pieces_;
  http::BodyStatus ending_ = http::BodyStatus::end;
};

}  // namespace tiffany::testkit

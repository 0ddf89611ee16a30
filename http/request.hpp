// Request: one parsed HTTP request as a handler sees it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tiffany/http/body_reader.hpp>
#include <tiffany/http/form_fields.hpp>
#include <tiffany/http/headers.hpp>

namespace tiffany::http {

/// A request: line, headers and its body. By default the whole body is read
/// (up to the configured limit) into `body` before the handler runs; a
/// handler whose `streams_request_body()` is true runs once the header
/// section is routed and reads the body as it arrives with body_reader()
/// (`body` then stays empty).
///
/// Lifetime: owned by the connection and reused for the next request on it;
/// a handler must not keep references past its own completion.
struct Request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // the request-target exactly as received
  std::string path;    // percent-decoded, dot-segments removed, starts with '/' (or is "*")
  std::string query;   // after '?', still percent-encoded; empty if none
  int version_major = 1;
  int version_minor = 1;
  Headers headers;
  std::string body;
  /// Route parameters: {"id", "42"} for "/users/:id"; {"*", "a/b"} for "/static/*".
  std::vector<std::pair<std::string, std::string>> params;
  std::string_view peer;  // "127.0.0.1:54321"; the connection owns the text
  /// Per-request attributes: set by middleware, read by the handler (e.g.
  /// {"user", "alice"} from basic_auth). A few entries; names are unique.
  std::vector<std::pair<std::string, std::string>> attributes;
  /// True when the client spoke TLS (an https listener): the request's
  /// scheme is "https" (nginx's $scheme). Set for every request, as `peer`.
  bool tls = false;

  bool is_head() const noexcept { return method == "HEAD"; }
  /// The body piece by piece: streamed from the connection for a handler
  /// that streams, else `body` as one piece (see BodyReader).
  BodyReader& body_reader() noexcept {
    body_reader_.bind_whole(&body);
    return body_reader_;
  }
  /// The route parameter `name`, if the route captured it.
  std::optional<std::string_view> param(std::string_view name) const noexcept;
  /// The attribute `name`, if a middleware set it.
  std::optional<std::string_view> attribute(std::string_view name) const noexcept;
  /// Sets attribute `name` to `value`, replacing an earlier value.
  void set_attribute(std::string_view name, std::string_view value);
  /// The first query parameter `name`, percent-decoded ('+' is a space).
  std::optional<std::string> query_param(std::string_view name) const;
  /// Every value of query parameter `name`, in order, percent-decoded
  /// (`?tag=a&tag=b` gives {"a", "b"}); pairs with a malformed escape are skipped.
  std::vector<std::string> query_params(std::string_view name) const;
  /// All query parameters, decoded, in order, for iteration; nullopt if
  /// any holds a malformed escape (answer 400).
  std::optional<FormFields> query_fields() const;
  /// The body's fields when Content-Type is application/x-www-form-urlencoded;
  /// nullopt for another type or a malformed escape.
  std::optional<FormFields> form() const;
  /// The value of cookie `name` from the Cookie header(s), as sent (not
  /// decoded), a view into `headers`; see cookies.hpp for Set-Cookie.
  std::optional<std::string_view> cookie(std::string_view name) const noexcept;

  /// Empties every field but keeps their storage for the next request.
  void clear() noexcept;

 private:
  // Why last: the fields above keep the offsets plugins built for ABI 4 knew.
  BodyReader body_reader_;
};

}  // namespace tiffany::http

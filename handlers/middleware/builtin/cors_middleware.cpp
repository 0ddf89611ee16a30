// cors: origin matching, preflight answers and the headers of ordinary responses.
#include "handlers/middleware/builtin/cors_middleware.hpp"

#include <algorithm>
#include <cctype>

#include <tiffany/http/headers.hpp>

#include "handlers/middleware/builtin/settings.hpp"

namespace tiffany {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

bool iequal(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

// "https://a.example" or "http://localhost:8080": a scheme, "://", a host, no path.
bool is_origin(const std::string& origin) {
  const std::size_t scheme_end = origin.find("://");
  if (scheme_end == std::string::npos || scheme_end == 0 || origin.size() == scheme_end + 3) return false;
  return origin.find('/', scheme_end + 3) == std::string::npos &&
         http::find_invalid_field_value_byte(origin) == std::string::npos && origin.find(' ') == std::string::npos;
}

}  // namespace

CorsMiddleware::CorsMiddleware(const HandlerParams& params)
    : credentials_(params.boolean_or("credentials", false)),
      max_age_(std::to_string(params.integer_or("max_age", 600, 0, 86'400))) {
  if (params.json("origins") == nullptr) throw ParamError("origins", "missing required key (\"*\" or an array of origins)");
  origins_ = middleware_settings::string_list(params, "origins", {}, true);
  any_origin_ = origins_.size() == 1 && origins_.front() == "*";
  if (!any_origin_) {
    if (origins_.empty()) throw ParamError("origins", "expected at least one origin, or \"*\"");
    for (std::size_t i = 0; i < origins_.size(); ++i) {
      if (!is_origin(origins_[i])) {
        throw ParamError("origins[" + std::to_string(i) + "]",
                         "expected an origin such as \"https://app.example\" (scheme://host[:port], no path), got \"" +
                             origins_[i] + "\"");
      }
    }
  }
  if (any_origin_ && credentials_) {
    throw ParamError("credentials", "browsers refuse credentials with any origin (\"*\"): list the origins instead");
  }
  const auto check_tokens = [&](const std::string& key, const std::vector<std::string>& items) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!http::is_valid_field_name(items[i])) {
        throw ParamError(key + "[" + std::to_string(i) + "]", "expected a token (a method or a header name), got \"" +
                                                                   items[i] + "\"");
      }
    }
  };
  const std::vector<std::string> methods = middleware_settings::string_list(params, "methods", {"GET", "HEAD", "POST"});
  const std::vector<std::string> headers = middleware_settings::string_list(params, "headers", {});
  const std::vector<std::string> expose = middleware_settings::string_list(params, "expose_headers", {});
  check_tokens("methods", methods);
  check_tokens("headers", headers);
  check_tokens("expose_headers", expose);
  methods_ = join(methods);
  headers_ = join(headers);
  expose_headers_ = join(expose);
}

bool CorsMiddleware::allows_origin(std::string_view origin) const noexcept {
  if (any_origin_) return true;
  // Why case-insensitive: scheme and host are; browsers send them lower case anyway.
  return std::any_of(origins_.begin(), origins_.end(), [&](const std::string& allowed) { return iequal(allowed, origin); });
}

Task<void> CorsMiddleware::handle(http::Request& request, http::Response& response, Next next) {
  const std::optional<std::string_view> origin = request.headers.get("Origin");
  if (!origin) {
    co_await next(request, response);
    co_return;
  }
  const bool allowed = allows_origin(*origin);
  const bool preflight = request.method == "OPTIONS" && request.headers.contains("Access-Control-Request-Method");
  if (preflight) {
    if (!any_origin_) response.headers.add("Vary", "Origin");
    if (!allowed) {
      response.status = 403;
      response.headers.set("Content-Type", "text/plain; charset=utf-8");
      response.body = "403 Forbidden: origin not allowed\n";
      co_return;
    }
    response.status = 204;
    response.headers.set("Access-Control-Allow-Origin", any_origin_ ? std::string_view("*") : *origin);
    response.headers.set("Access-Control-Allow-Methods", methods_);
    if (!headers_.empty()) response.headers.set("Access-Control-Allow-Headers", headers_);
    if (credentials_) response.headers.set("Access-Control-Allow-Credentials", "true");
    response.headers.set("Access-Control-Max-Age", max_age_);
    co_return;
  }
  // Why before the rest runs: a streamed response's head leaves with its first piece.
  if (!any_origin_) response.headers.add("Vary", "Origin");
  if (allowed) {
    response.headers.set("Access-Control-Allow-Origin", any_origin_ ? std::string_view("*") : *origin);
    if (credentials_) response.headers.set("Access-Control-Allow-Credentials", "true");
    if (!expose_headers_.empty()) response.headers.set("Access-Control-Expose-Headers", expose_headers_);
  }
  co_await next(request, response);
}

}  // namespace tiffany

// Request: parameter lookup and reuse.
#include "server/http/request.hpp"

#include "server/http/cookies.hpp"
#include "server/http/media_type.hpp"
#include "server/http/uri.hpp"

namespace tiffany::http {

std::optional<std::string_view> Request::param(std::string_view name) const noexcept {
  for (const auto& [key, value] : params) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

std::optional<std::string_view> Request::attribute(std::string_view name) const noexcept {
  for (const auto& [key, value] : attributes) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

void Request::set_attribute(std::string_view name, std::string_view value) {
  for (auto& [key, existing] : attributes) {
    if (key == name) {
      existing.assign(value);
      return;
    }
  }
  attributes.emplace_back(std::string(name), std::string(value));
}

std::optional<std::string> Request::query_param(std::string_view name) const {
  std::string_view rest = query;
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    const auto eq = pair.find('=');
    std::string key;
    if (!percent_decode(pair.substr(0, eq), key, /*plus_is_space=*/true) || key != name) continue;
    std::string value;
    if (eq != std::string_view::npos && !percent_decode(pair.substr(eq + 1), value, true)) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

std::vector<std::string> Request::query_params(std::string_view name) const {
  std::vector<std::string> values;
  std::string_view rest = query;
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    const auto eq = pair.find('=');
    std::string key;
    if (pair.empty() || !percent_decode(pair.substr(0, eq), key, /*plus_is_space=*/true) || key != name) continue;
    std::string value;
    if (eq != std::string_view::npos && !percent_decode(pair.substr(eq + 1), value, true)) continue;
    values.push_back(std::move(value));
  }
  return values;
}

std::optional<FormFields> Request::query_fields() const { return FormFields::parse(query); }

std::optional<FormFields> Request::form() const {
  const auto type = headers.get("Content-Type");
  if (!type || !media_type_is(*type, "application/x-www-form-urlencoded")) return std::nullopt;
  return FormFields::parse(body);
}

std::optional<std::string_view> Request::cookie(std::string_view name) const noexcept {
  return find_cookie(headers, name);
}

void Request::clear() noexcept {
  method.clear();
  target.clear();
  path.clear();
  query.clear();
  version_major = 1;
  version_minor = 1;
  headers.clear();
  body.clear();
  params.clear();
  attributes.clear();
}

}  // namespace tiffany::http

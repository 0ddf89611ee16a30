// Request: parameter lookup and reuse.
#include <tiffany/http/request.hpp>

#include <tiffany/http/cookies.hpp>
#include <tiffany/http/media_type.hpp>
#include <tiffany/http/uri.hpp>

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

namespace {

// Calls `found(value)` for each pair of `query` whose decoded key is `name`,
// in order; `value` is nullopt when it does not percent-decode. Stops early
// when `found` returns false.
template <class Found>
void visit_query_values(std::string_view query, std::string_view name, Found&& found) {
  std::string_view rest = query;
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    const auto eq = pair.find('=');
    std::string key;
    if (pair.empty() || !percent_decode(pair.substr(0, eq), key, /*plus_is_space=*/true) || key != name) continue;
    std::optional<std::string> value(std::in_place);
    if (eq != std::string_view::npos && !percent_decode(pair.substr(eq + 1), *value, true)) value.reset();
    if (!found(std::move(value))) return;
  }
}

}  // namespace

std::optional<std::string> Request::query_param(std::string_view name) const {
  std::optional<std::string> first;
  visit_query_values(query, name, [&first](std::optional<std::string> value) {
    first = std::move(value);
    return false;
  });
  return first;
}

std::vector<std::string> Request::query_params(std::string_view name) const {
  std::vector<std::string> values;
  visit_query_values(query, name, [&values](std::optional<std::string> value) {
    if (value) values.push_back(std::move(*value));
    return true;
  });
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
  tls = false;
  body_reader_.reset();
}

}  // namespace tiffany::http

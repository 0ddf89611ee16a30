// read_proxy_settings: a proxy route's keys checked one by one, each error naming its key.
#include "handlers/builtin/proxy/proxy_settings.hpp"

#include <tiffany/http/headers.hpp>
#include <tiffany/http/uri.hpp>

#include "client/upstream/proxy_headers.hpp"

namespace tiffany::proxy {
namespace {

bool is_token(std::string_view name) { return http::is_valid_field_name(name); }

bool valid_value(std::string_view value) { return http::find_invalid_field_value_byte(value) == std::string_view::npos; }

std::string prefix_or_empty(const HandlerParams& params, const std::string& key) {
  std::string prefix = params.string_or(key, "");
  if (!prefix.empty() && prefix.front() != '/') throw ParamError(key, "a path prefix starting with '/'");
  if (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
  return prefix;
}

NextUpstream read_next_upstream(const HandlerParams& params) {
  NextUpstream next;
  const picojson::value* value = params.json("next_upstream");
  if (value == nullptr) return next;
  const std::string expected = "an array of \"error\", \"timeout\", \"502\", \"503\", \"504\"";
  if (!value->is<picojson::array>()) throw ParamError("next_upstream", expected);
  next.error = false;
  for (const picojson::value& item : value->get<picojson::array>()) {
    const std::string name = item.is<std::string>() ? item.get<std::string>() : "";
    if (name == "error") {
      next.error = true;
    } else if (name == "timeout") {
      next.timeout = true;
    } else if (name == "502") {
      next.status_502 = true;
    } else if (name == "503") {
      next.status_503 = true;
    } else if (name == "504") {
      next.status_504 = true;
    } else {
      throw ParamError("next_upstream", expected + "; got " + item.serialize());
    }
  }
  return next;
}

}  // namespace

ProxySettings read_proxy_settings(const HandlerParams& params) {
  ProxySettings settings;
  settings.upstream = params.string("upstream");
  settings.strip_prefix = prefix_or_empty(params, "strip_prefix");
  settings.rewrite_prefix = prefix_or_empty(params, "rewrite_prefix");
  if (!settings.rewrite_prefix.empty() && settings.strip_prefix.empty()) {
    throw ParamError("rewrite_prefix", "needs strip_prefix: the prefix it replaces");
  }
  if (const picojson::value* set = params.json("set_headers")) {
    if (!set->is<picojson::object>()) throw ParamError("set_headers", "an object of field name -> value");
    for (const auto& [name, value] : set->get<picojson::object>()) {
      if (!is_token(name)) throw ParamError("set_headers." + name, "a field name (a token)");
      if (!value.is<std::string>() || !valid_value(value.get<std::string>())) {
        throw ParamError("set_headers." + name, "a string without control characters");
      }
      // Why refused here: the client frames the body itself and a hop-by-hop
      // field means nothing past the next hop, so each would fail or lie on
      // every request; better said once, at load.
      if (http::iequals(name, "Content-Length") || upstream::is_fixed_hop_by_hop(name)) {
        throw ParamError("set_headers." + name,
                         "a field the proxy may set (not Content-Length, Transfer-Encoding or another hop-by-hop field)");
      }
      if (http::iequals(name, "Host") && !http::is_valid_host(value.get<std::string>())) {
        throw ParamError("set_headers." + name, "a host[:port]");
      }
      settings.set_headers.emplace_back(name, value.get<std::string>());
    }
  }
  if (const picojson::value* remove = params.json("remove_headers")) {
    if (!remove->is<picojson::array>()) throw ParamError("remove_headers", "an array of field names");
    const auto& names = remove->get<picojson::array>();
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!names[i].is<std::string>() || !is_token(names[i].get<std::string>())) {
        throw ParamError("remove_headers[" + std::to_string(i) + "]", "a field name (a token)");
      }
      settings.remove_headers.push_back(names[i].get<std::string>());
    }
  }
  settings.pass_host = params.boolean_or("pass_host", true);
  settings.trust_forwarded = params.boolean_or("trust_forwarded", false);
  settings.first_byte_timeout =
      std::chrono::milliseconds(params.integer_or("first_byte_timeout_ms", 60000, 1, 3'600'000));
  settings.total_timeout = std::chrono::milliseconds(params.integer_or("total_timeout_ms", 0, 0, 86'400'000));
  settings.next_upstream = read_next_upstream(params);
  settings.max_tries = static_cast<int>(params.integer_or("max_tries", 2, 1, 16));
  settings.hedge_after = std::chrono::milliseconds(params.integer_or("hedge_after_ms", 0, 0, 600'000));
  settings.ignore_client_abort = params.boolean_or("ignore_client_abort", false);
  settings.splice = params.boolean_or("splice", true);
  return settings;
}

}  // namespace tiffany::proxy

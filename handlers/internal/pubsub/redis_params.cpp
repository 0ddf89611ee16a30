// redis_params: reading the `redis` setting in either form, with errors that name the key below the route.
#include "handlers/internal/pubsub/redis_params.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

namespace tiffany::pubsub {
namespace {

std::string quoted_list(const std::set<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "\"" : ", \"") + item + "\"";
  return text;
}

// "host:port" (a name, an IPv4 address, or [an IPv6 one]) into `settings`; false if it is not one.
bool parse_address(const std::string& address, RedisSettings& settings) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  unsigned port = 0;
  const char* end = address.data() + address.size();
  const auto [stop, error] = std::from_chars(address.data() + colon + 1, end, port);
  if (error != std::errc() || stop != end || port == 0 || port > 65535) return false;
  settings.host = address.substr(0, colon);
  if (settings.host.size() > 2 && settings.host.front() == '[' && settings.host.back() == ']') {
    settings.host = settings.host.substr(1, settings.host.size() - 2);
  }
  settings.port = static_cast<std::uint16_t>(port);
  return true;
}

// Runs `read` on the object at `key` as params of their own; their errors and unknown keys are
// rethrown under "key.", as the route's own are under "with.".
template <class Read>
void read_object(const HandlerParams& outer, const std::string& key, const picojson::object& object, Read read) {
  const HandlerParams inner(object, outer.base_directory(), nullptr, false);
  try {
    read(inner);
  } catch (const ParamError& e) {
    throw ParamError(key + (e.key().empty() ? "" : "." + e.key()), e.what());
  }
  for (const std::string& unknown : inner.unknown_keys()) {
    throw ParamError(key + "." + unknown, "unknown key; expected one of " + quoted_list(inner.known_keys()));
  }
}

// The secret in `path`: the file's bytes but one trailing newline (as `echo` writes it).
std::string read_password(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ParamError("password_file", "cannot read \"" + path + "\": " + std::strerror(errno));
  std::string secret((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!secret.empty() && secret.back() == '\n') secret.pop_back();
  if (!secret.empty() && secret.back() == '\r') secret.pop_back();
  if (secret.empty()) throw ParamError("password_file", "\"" + path + "\" is empty; expected the password in it");
  return secret;
}

RedisTls tls_from(const HandlerParams& params) {
  RedisTls tls;
  tls.verify = params.boolean_or("verify", true);
  if (params.json("ca_file") != nullptr) tls.ca_file = params.path("ca_file");
  tls.server_name = params.string_or("server_name", "");
  if (!tls.verify && !tls.ca_file.empty()) throw ParamError("ca_file", "a CA file with \"verify\": false checks nothing; drop one");
  return tls;
}

void object_from(const HandlerParams& params, RedisSettings& settings) {
  const std::string address = params.string("address");
  if (!parse_address(address, settings)) {
    throw ParamError("address", "expected \"host:port\" (as \"127.0.0.1:6379\"), got \"" + address + "\"");
  }
  settings.user = params.string_or("user", "");
  if (params.json("password_file") != nullptr) settings.password = read_password(params.path("password_file"));
  if (!settings.user.empty() && settings.password.empty()) {
    throw ParamError("user", "an ACL user needs \"password_file\" too");
  }
  if (const picojson::value* tls = params.json("tls"); tls != nullptr) {
    if (!tls->is<picojson::object>()) throw ParamError("tls", "expected an object ({} for the system's CAs)");
    read_object(params, "tls", tls->get<picojson::object>(),
                [&](const HandlerParams& inner) { settings.tls = tls_from(inner); });
  }
  settings.ping_interval = std::chrono::milliseconds(
      params.integer_or("ping_interval_ms", RedisSettings::kDefaultPingInterval.count(), 100, 3'600'000));
  settings.timeout =
      std::chrono::milliseconds(params.integer_or("timeout_ms", RedisSettings::kDefaultTimeout.count(), 100, 600'000));
}

}  // namespace

std::optional<RedisSettings> redis_settings_from(const HandlerParams& params) {
  const picojson::value* redis = params.json("redis");
  if (redis == nullptr) return std::nullopt;
  RedisSettings settings;
  if (redis->is<std::string>()) {
    const std::string& address = redis->get<std::string>();
    if (address.empty()) return std::nullopt;  // as absent (a template's blank)
    if (!parse_address(address, settings)) {
      throw ParamError("redis", "expected \"host:port\" (as \"127.0.0.1:6379\"), got \"" + address + "\"");
    }
    return settings;
  }
  if (!redis->is<picojson::object>()) {
    throw ParamError("redis", "expected \"host:port\" or an object {\"address\": \"host:port\", ...}");
  }
  read_object(params, "redis", redis->get<picojson::object>(),
              [&](const HandlerParams& inner) { object_from(inner, settings); });
  return settings;
}

}  // namespace tiffany::pubsub

// Config loading: JSON text -> validated Config, with precise errors.
#include "conf/config_loader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "conf/config_error.hpp"
#include "conf/json_node.hpp"

namespace tiffany {
namespace {

ListenerConfig read_listener(const JsonNode& node) {
  ObjectReader reader(node, {"name", "address", "protocol"});
  ListenerConfig listener;
  listener.json_path = node.path();
  listener.name = reader.required("name").as_nonempty_string();

  const JsonNode address = reader.required("address");
  auto parsed = ListenAddress::parse(address.as_string());
  if (!parsed)
    address.fail("\"HOST:PORT\" with an IPv4 address, [IPv6] address or localhost and a port from 0 to 65535");
  listener.address = *parsed;

  reader.required("protocol").as_choice({"echo"});
  listener.protocol = Protocol::echo;
  return listener;
}

}  // namespace

Config parse_config(const std::string& text, const std::string& file) {
  picojson::value document;
  const std::string error = picojson::parse(document, text);
  if (!error.empty()) {
    std::string message = error;
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
    std::replace(message.begin(), message.end(), '\n', ' ');
    throw ConfigError(file, "$", "invalid JSON: " + message);
  }

  const JsonNode root(document, file, "$");
  ObjectReader reader(root, {"listeners"});
  Config config;
  config.file = file;

  const JsonNode listeners = reader.required("listeners");
  const auto items = listeners.as_array();
  if (items.empty()) listeners.fail("at least one listener");
  std::set<std::string> names;
  for (const JsonNode& item : items) {
    ListenerConfig listener = read_listener(item);
    if (!names.insert(listener.name).second) {
      throw ConfigError(file, item.path() + ".name", "duplicate listener name \"" + listener.name + "\"");
    }
    config.listeners.push_back(std::move(listener));
  }
  return config;
}

Config load_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "$", std::string("cannot read the file: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path);
}

}  // namespace tiffany

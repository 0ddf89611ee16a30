// Config: the validated contents of a tiffany.json file.
#pragma once

#include <string>
#include <vector>

#include "conf/listen_address.hpp"

namespace tiffany {

enum class Protocol { echo };

struct ListenerConfig {
  std::string name;
  ListenAddress address;
  Protocol protocol = Protocol::echo;
  std::string json_path;  // where it came from, for errors found later (e.g. bind)
};

struct Config {
  std::string file;  // the path it was loaded from, for error messages
  std::vector<ListenerConfig> listeners;
};

}  // namespace tiffany

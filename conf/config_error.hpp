// ConfigError: a refusal to start, naming the file, the JSON path and what was expected.
#pragma once

#include <stdexcept>
#include <string>

namespace tiffany {

/// Thrown while loading or applying a config. what() is one line:
/// `FILE: JSON_PATH: MESSAGE`, e.g. `tiffany.json: $.listeners[0].address: expected ...`.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& file, const std::string& json_path, const std::string& message)
      : std::runtime_error(file + ": " + json_path + ": " + message), file_(file), json_path_(json_path) {}

  const std::string& file() const noexcept { return file_; }
  const std::string& json_path() const noexcept { return json_path_; }

 private:
  std::string file_;
  std::string json_path_;
};

}  // namespace tiffany

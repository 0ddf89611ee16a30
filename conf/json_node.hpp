// JsonNode / ObjectReader: walk a picojson document while tracking the JSON
// path, so every validation error can say exactly where it is.
#pragma once

#include <picojson.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tiffany {

/// A value in a config document plus where it is (file and `$.a.b[2]` path).
/// Every accessor throws ConfigError naming that place when the type is wrong.
class JsonNode {
 public:
  JsonNode(const picojson::value& value, std::string file, std::string path)
      : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

  const std::string& path() const noexcept { return path_; }
  const std::string& file() const noexcept { return file_; }
  const picojson::value& raw() const noexcept { return *value_; }

  /// Throws ConfigError("expected <expectation>, got <this value>").
  [[noreturn]] void fail(std::string_view expectation) const;

  std::string as_string() const;
  std::string as_nonempty_string() const;
  bool as_bool() const;
  /// An integer in [min, max].
  std::int64_t as_integer(std::int64_t min, std::int64_t max) const;
  std::vector<JsonNode> as_array() const;
  /// The string value, which must be one of `choices`.
  std::string as_choice(std::initializer_list<std::string_view> choices) const;

  JsonNode child(const std::string& key, const picojson::value& value) const;
  JsonNode item(std::size_t index, const picojson::value& value) const;

 private:
  const picojson::value* value_;
  std::string file_;
  std::string path_;
};

/// An object whose keys are checked against the allowed set on construction:
/// an unknown key (a typo) is an error, not something silently ignored.
class ObjectReader {
 public:
  ObjectReader(const JsonNode& node, std::initializer_list<std::string_view> allowed_keys);

  JsonNode required(const std::string& key) const;
  std::optional<JsonNode> optional(const std::string& key) const;
  const JsonNode& node() const noexcept { return node_; }

 private:
  JsonNode node_;
  const picojson::object* object_;
};

/// A short description of a JSON value for error messages: `"text"`, `42`, `an array`.
std::string describe_json(const picojson::value& value);

}  // namespace tiffany

// JsonNode / ObjectReader: typed access to config JSON with precise errors.
#include "conf/json_node.hpp"

#include <cmath>

#include "conf/config_error.hpp"

namespace tiffany {
namespace {

std::string join_choices(std::initializer_list<std::string_view> choices) {
  std::string text;
  for (std::string_view choice : choices) {
    if (!text.empty()) text += ", ";
    text += '"';
    text += choice;
    text += '"';
  }
  return text;
}

}  // namespace

std::string describe_json(const picojson::value& value) {
  if (value.is<std::string>()) {
    // Why the loop: picojson writes '/' as "\/", which reads badly in a
    // message about paths and media types; other escapes stay.
    const std::string escaped = value.serialize();
    std::string text;
    for (std::size_t i = 0; i < escaped.size(); ++i) {
      if (escaped[i] == '\\' && i + 1 < escaped.size()) {
        if (escaped[i + 1] != '/') text += '\\';
        text += escaped[++i];
      } else {
        text += escaped[i];
      }
    }
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return text;
  }
  if (value.is<double>() || value.is<bool>()) return value.to_str();
  if (value.is<picojson::null>()) return "null";
  if (value.is<picojson::array>()) return "an array";
  return "an object";
}

void JsonNode::fail(std::string_view expectation) const {
  throw ConfigError(file_, path_, "expected " + std::string(expectation) + ", got " + describe_json(*value_));
}

std::string JsonNode::as_string() const {
  if (!value_->is<std::string>()) fail("a string");
  return value_->get<std::string>();
}

std::string JsonNode::as_nonempty_string() const {
  if (!value_->is<std::string>() || value_->get<std::string>().empty()) fail("a non-empty string");
  return value_->get<std::string>();
}

bool JsonNode::as_bool() const {
  if (!value_->is<bool>()) fail("true or false");
  return value_->get<bool>();
}

std::int64_t JsonNode::as_integer(std::int64_t min, std::int64_t max) const {
  const std::string range = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  if (!value_->is<double>()) fail(range);
  const double number = value_->get<double>();
  if (std::floor(number) != number || number < static_cast<double>(min) || number > static_cast<double>(max))
    fail(range);
  return static_cast<std::int64_t>(number);
}

std::vector<JsonNode> JsonNode::as_array() const {
  if (!value_->is<picojson::array>()) fail("an array");
  const auto& array = value_->get<picojson::array>();
  std::vector<JsonNode> items;
  items.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) items.push_back(item(i, array[i]));
  return items;
}

std::string JsonNode::as_choice(std::initializer_list<std::string_view> choices) const {
  const std::string expectation = "one of " + join_choices(choices);
  if (!value_->is<std::string>()) fail(expectation);
  const std::string& text = value_->get<std::string>();
  for (std::string_view choice : choices) {
    if (text == choice) return text;
  }
  fail(expectation);
}

JsonNode JsonNode::child(const std::string& key, const picojson::value& value) const {
  return JsonNode(value, file_, path_ + "." + key);
}

JsonNode JsonNode::item(std::size_t index, const picojson::value& value) const {
  return JsonNode(value, file_, path_ + "[" + std::to_string(index) + "]");
}

ObjectReader::ObjectReader(const JsonNode& node, std::initializer_list<std::string_view> allowed_keys)
    : node_(node), object_(nullptr) {
  if (!node.raw().is<picojson::object>()) node.fail("an object");
  object_ = &node.raw().get<picojson::object>();
  for (const auto& [key, value] : *object_) {
    bool known = false;
    for (std::string_view allowed : allowed_keys) known = known || key == allowed;
    if (!known) {
      throw ConfigError(node.file(), node.child(key, value).path(),
                        "unknown key; expected one of " + join_choices(allowed_keys));
    }
  }
}

JsonNode ObjectReader::required(const std::string& key) const {
  auto found = optional(key);
  if (!found) throw ConfigError(node_.file(), node_.path() + "." + key, "missing required key");
  return *found;
}

std::optional<JsonNode> ObjectReader::optional(const std::string& key) const {
  auto it = object_->find(key);
  if (it == object_->end()) return std::nullopt;
  return node_.child(key, it->second);
}

}  // namespace tiffany

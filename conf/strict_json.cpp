// parse_strict_json: a picojson parse context that tracks the JSON path and refuses duplicate keys.
#include "conf/strict_json.hpp"

#include <algorithm>
#include <optional>

#include "conf/config_error.hpp"

namespace tiffany {
namespace {

/// What the contexts of one parse share: the first duplicate found.
struct Duplicate {
  std::optional<std::string> path;  // the object's JSON path
  std::string key;
};

/// picojson's default_parse_context, plus the path of the value it fills
/// and a check before each object member.
class StrictContext : public picojson::default_parse_context {
 public:
  StrictContext(picojson::value* out, std::size_t depths, std::string path, Duplicate& duplicate)
      : default_parse_context(out, depths), path_(std::move(path)), duplicate_(duplicate) {}

  template <typename Iter>
  bool parse_array_item(picojson::input<Iter>& in, std::size_t index) {
    picojson::array& array = out_->get<picojson::array>();
    array.push_back(picojson::value());
    StrictContext item(&array.back(), depths_, path_ + "[" + std::to_string(index) + "]", duplicate_);
    return picojson::_parse(item, in);
  }

  template <typename Iter>
  bool parse_object_item(picojson::input<Iter>& in, const std::string& key) {
    picojson::object& object = out_->get<picojson::object>();
    if (object.count(key) != 0) {
      duplicate_.path = path_;
      duplicate_.key = key;
      return false;  // stops the parse
    }
    StrictContext member(&object[key], depths_, path_ + "." + key, duplicate_);
    return picojson::_parse(member, in);
  }

 private:
  std::string path_;
  Duplicate& duplicate_;
};

}  // namespace

picojson::value parse_strict_json(const std::string& text, const std::string& file) {
  picojson::value document;
  Duplicate duplicate;
  StrictContext context(&document, picojson::DEFAULT_MAX_DEPTHS, "$", duplicate);
  std::string error;
  picojson::_parse(context, text.begin(), text.end(), &error);
  if (duplicate.path) {
    throw ConfigError(file, *duplicate.path + "." + duplicate.key,
                      "key given twice in one object (JSON keeps only one; remove or rename the other)");
  }
  if (!error.empty()) {
    while (!error.empty() && (error.back() == '\n' || error.back() == '\r')) error.pop_back();
    std::replace(error.begin(), error.end(), '\n', ' ');
    throw ConfigError(file, "$", "invalid JSON: " + error);
  }
  return document;
}

}  // namespace tiffany

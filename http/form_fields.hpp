// FormFields: decoded name/value pairs of a query string or an urlencoded form.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tiffany::http {

/// The fields of `application/x-www-form-urlencoded` text (a query string or
/// a form body), percent-decoded ('+' is a space), in order, repeats kept:
/// `a=1&b=x+y&a=2` holds (a,1), (b,"x y"), (a,2). A name without '=' has an
/// empty value; empty pieces (`a=1&&b=2`) are skipped.
///
/// Owns its strings: it may outlive the text it was parsed from.
class FormFields {
 public:
  using Field = std::pair<std::string, std::string>;

  /// Parses `encoded`; nullopt when a name or value holds a malformed or NUL
  /// escape (`%zz`, `%00`) or a NUL byte: answer 400 rather than guess. So
  /// no name or value ever holds a NUL.
  static std::optional<FormFields> parse(std::string_view encoded);

  /// The first value of `name`.
  std::optional<std::string_view> get(std::string_view name) const noexcept;
  /// Every value of `name`, in order (empty if none).
  std::vector<std::string_view> get_all(std::string_view name) const;
  bool contains(std::string_view name) const noexcept { return get(name).has_value(); }

  std::size_t size() const noexcept { return fields_.size(); }
  bool empty() const noexcept { return fields_.empty(); }
  std::vector<Field>::const_iterator begin() const noexcept { return fields_.begin(); }
  std::vector<Field>::const_iterator end() const noexcept { return fields_.end(); }

 private:
  std::vector<Field> fields_;
};

}  // namespace tiffany::http

// Headers: storage reuse and case-insensitive lookup.
#include "server/http/headers.hpp"

#include <algorithm>

namespace tiffany::http {

namespace {
constexpr char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
}  // namespace

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::optional<std::string_view> Headers::get(std::string_view name) const noexcept {
  for (const Field& field : *this) {
    if (iequals(field.name, name)) return std::string_view(field.value);
  }
  return std::nullopt;
}

std::vector<std::string_view> Headers::get_all(std::string_view name) const {
  std::vector<std::string_view> values;
  for (const Field& field : *this) {
    if (iequals(field.name, name)) values.emplace_back(field.value);
  }
  return values;
}

Headers::Field& Headers::start_field() {
  if (size_ == fields_.size()) fields_.emplace_back();
  Field& field = fields_[size_++];
  field.name.clear();
  field.value.clear();
  return field;
}

void Headers::add(std::string_view name, std::string_view value) {
  Field& field = start_field();
  field.name.assign(name);
  field.value.assign(value);
}

void Headers::set(std::string_view name, std::string_view value) {
  remove(name);
  add(name, value);
}

void Headers::remove(std::string_view name) {
  auto live_end = fields_.begin() + static_cast<std::ptrdiff_t>(size_);
  // Why: stable_partition keeps order and moves removed fields (with their
  // capacity) behind the live ones for later reuse.
  auto kept_end = std::stable_partition(fields_.begin(), live_end, [&](const Field& f) { return !iequals(f.name, name); });
  size_ = static_cast<std::size_t>(kept_end - fields_.begin());
}

}  // namespace tiffany::http

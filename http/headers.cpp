// Headers: storage reuse and case-insensitive lookup.
#include <tiffany/http/headers.hpp>

#include <algorithm>
#include <array>

namespace tiffany::http {

namespace {
constexpr char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

// A byte table per grammar rule, so a check is one lookup per byte.
using ByteTable = std::array<bool, 256>;

constexpr ByteTable make_token_table() {
  ByteTable table{};
  for (int c = '0'; c <= '9'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (int c = 'a'; c <= 'z'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (const char c : std::string_view("!#$%&'*+-.^_`|~")) table[static_cast<unsigned char>(c)] = true;
  return table;
}

constexpr ByteTable make_field_value_table() {
  ByteTable table{};
  table['\t'] = true;
  for (std::size_t c = 0x20; c < 0x100; ++c) table[c] = c != 0x7f;
  return table;
}

constexpr ByteTable kTokenByte = make_token_table();
constexpr ByteTable kFieldValueByte = make_field_value_table();

}  // namespace

bool is_token_char(char c) noexcept { return kTokenByte[static_cast<unsigned char>(c)]; }

bool is_valid_field_name(std::string_view name) noexcept {
  if (name.empty()) return false;
  for (const char c : name) {
    if (!is_token_char(c)) return false;
  }
  return true;
}

std::size_t find_invalid_field_value_byte(std::string_view value) noexcept {
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!kFieldValueByte[static_cast<unsigned char>(value[i])]) return i;
  }
  return std::string_view::npos;
}

std::string_view trim_ows(std::string_view text) noexcept {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool detail::iequals_bytes(const char* a, const char* b, std::size_t size) noexcept {
  for (std::size_t i = 0; i < size; ++i) {
    if (a[i] != b[i] && lower(a[i]) != lower(b[i])) return false;
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
  remove_if([name](const Field& field) { return iequals(field.name, name); });
}

}  // namespace tiffany::http

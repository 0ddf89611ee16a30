// Headers: an ordered list of HTTP header fields with case-insensitive lookup.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tiffany::http {

namespace detail {
/// The `size` bytes at `a` and `b` are equal ignoring ASCII case.
bool iequals_bytes(const char* a, const char* b, std::size_t size) noexcept;
}  // namespace detail

/// True when `a` and `b` are equal ignoring ASCII case. Inline, so the
/// common mismatch (another length) costs no call.
inline bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && detail::iequals_bytes(a.data(), b.data(), a.size());
}

/// `text` without optional whitespace (RFC 9110 §5.6.3 OWS: spaces and tabs) at either end.
std::string_view trim_ows(std::string_view text) noexcept;

/// True when `c` may be part of a token (RFC 9110 §5.6.2): a letter, digit
/// or one of ``!#$%&'*+-.^_`|~``.
bool is_token_char(char c) noexcept;
/// True when `name` is a token (one or more token characters), the only
/// valid field name.
bool is_valid_field_name(std::string_view name) noexcept;

/// The offset of the first byte a field value must not hold, or npos: the
/// control characters (NUL, CR and LF among them) but HTAB, and DEL
/// (RFC 9110 §5.5). Space, HTAB and bytes from 0x80 up are fine. One table
/// lookup per byte.
std::size_t find_invalid_field_value_byte(std::string_view value) noexcept;

/// Header fields in the order received or added. Repeated fields are kept
/// as separate entries. Clearing keeps the storage for reuse, so a
/// keep-alive connection parses request after request without allocating.
class Headers {
 public:
  struct Field {
    std::string name;
    std::string value;
  };

  /// The first value of `name`, or nullopt.
  std::optional<std::string_view> get(std::string_view name) const noexcept;
  /// Every value of `name`, in order.
  std::vector<std::string_view> get_all(std::string_view name) const;
  bool contains(std::string_view name) const noexcept { return get(name).has_value(); }

  /// Appends a field (a repeated name is kept as another entry).
  void add(std::string_view name, std::string_view value);
  /// Replaces every field called `name` with one holding `value`.
  void set(std::string_view name, std::string_view value);
  /// Removes every field called `name`.
  void remove(std::string_view name);
  /// Removes every field for which `drop(field)` is true, in one pass; the
  /// others keep their order.
  template <class Predicate>
  void remove_if(Predicate drop);
  void clear() noexcept { size_ = 0; }
  /// Makes room for `count` fields, so adding that many moves none.
  void reserve(std::size_t count) { fields_.reserve(count); }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const Field* begin() const noexcept { return fields_.data(); }
  const Field* end() const noexcept { return fields_.data() + size_; }

  // ---- for parsers that build a field from fragments ----
  /// Starts a new, empty field and returns it.
  Field& start_field();
  /// The field being built (the last one); requires !empty().
  Field& last() noexcept { return fields_[size_ - 1]; }

 private:
  std::vector<Field> fields_;  // [0, size_) are live; the rest keep their capacity
  std::size_t size_ = 0;
};

template <class Predicate>
void Headers::remove_if(Predicate drop) {
  // Why swaps, not erase: the dropped fields move behind the live ones with
  // their strings' capacity, for later reuse, and nothing is allocated.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < size_; ++i) {
    if (drop(static_cast<const Field&>(fields_[i]))) continue;
    if (kept != i) std::swap(fields_[kept], fields_[i]);
    ++kept;
  }
  size_ = kept;
}

}  // namespace tiffany::http

// Single byte-range parsing (RFC 9110 §14.1.2).
#include "handlers/builtin/byte_range.hpp"

#include <charconv>

namespace tiffany {
namespace {

enum class Number { ok, overflow, invalid };

// 1*DIGIT. A number too large for 64 bits is still a valid one (RFC 9110
// §14.1.1 puts no bound on it): it is past the end of any file.
Number parse_number(std::string_view text, std::uint64_t& value) {
  if (text.empty()) return Number::invalid;
  for (const char c : text) {
    if (c < '0' || c > '9') return Number::invalid;
  }
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range) {
    value = UINT64_MAX;
    return Number::overflow;
  }
  return error == std::errc{} && end == text.data() + text.size() ? Number::ok : Number::invalid;
}

std::string_view trim_ows(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool starts_with_bytes_unit(std::string_view header) {
  // Why case-insensitive: range units are (RFC 9110 §14.1).
  constexpr std::string_view kUnit = "bytes";
  if (header.size() <= kUnit.size() || header[kUnit.size()] != '=') return false;
  for (std::size_t i = 0; i < kUnit.size(); ++i) {
    if ((header[i] | 0x20) != kUnit[i]) return false;
  }
  return true;
}

}  // namespace

RangeOutcome parse_byte_range(std::string_view header, std::uint64_t size, ByteRange& range) {
  if (!starts_with_bytes_unit(header)) return RangeOutcome::ignore;  // another unit: MUST be ignored
  // Blanks around the spec are taken as a list's OWS (nginx does the same).
  const std::string_view spec = trim_ows(header.substr(6));
  if (spec.find(',') != std::string_view::npos) return RangeOutcome::ignore;  // multipart ranges: whole file
  const auto dash = spec.find('-');
  if (dash == std::string_view::npos) return RangeOutcome::ignore;
  const std::string_view first_text = trim_ows(spec.substr(0, dash));
  const std::string_view last_text = trim_ows(spec.substr(dash + 1));

  std::uint64_t first = 0;
  std::uint64_t last = 0;
  if (first_text.empty()) {  // suffix: the last N bytes (a huge N is the whole file)
    std::uint64_t suffix = 0;
    if (parse_number(last_text, suffix) == Number::invalid) return RangeOutcome::ignore;
    if (suffix == 0 || size == 0) return RangeOutcome::unsatisfiable;
    range = {suffix >= size ? 0 : size - suffix, size - 1};
    return RangeOutcome::satisfiable;
  }
  if (parse_number(first_text, first) == Number::invalid) return RangeOutcome::ignore;
  if (last_text.empty()) {
    last = size == 0 ? 0 : size - 1;
  } else if (parse_number(last_text, last) == Number::invalid || last < first) {
    // An inverted range is an invalid range-spec (RFC 9110 §14.1.1), which a
    // server MAY ignore or reject (§14.2): Tiffany ignores it and sends the whole file.
    return RangeOutcome::ignore;
  }
  if (first >= size) return RangeOutcome::unsatisfiable;  // an overflowing first-pos too
  range = {first, last >= size ? size - 1 : last};
  return RangeOutcome::satisfiable;
}

}  // namespace tiffany

// Single byte-range parsing (RFC 9110 §14.1.2).
#include "handlers/builtin/byte_range.hpp"

#include <charconv>

namespace tiffany {
namespace {

bool parse_number(std::string_view text, std::uint64_t& value) {
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc{} && end == text.data() + text.size();
}

}  // namespace

RangeOutcome parse_byte_range(std::string_view header, std::uint64_t size, ByteRange& range) {
  constexpr std::string_view kPrefix = "bytes=";
  if (!header.starts_with(kPrefix)) return RangeOutcome::ignore;
  const std::string_view spec = header.substr(kPrefix.size());
  if (spec.find(',') != std::string_view::npos) return RangeOutcome::ignore;  // multipart ranges: whole file
  const auto dash = spec.find('-');
  if (dash == std::string_view::npos) return RangeOutcome::ignore;
  const std::string_view first_text = spec.substr(0, dash);
  const std::string_view last_text = spec.substr(dash + 1);

  std::uint64_t first = 0;
  std::uint64_t last = 0;
  if (first_text.empty()) {  // suffix: the last N bytes
    std::uint64_t suffix = 0;
    if (!parse_number(last_text, suffix)) return RangeOutcome::ignore;
    if (suffix == 0 || size == 0) return RangeOutcome::unsatisfiable;
    range = {suffix >= size ? 0 : size - suffix, size - 1};
    return RangeOutcome::satisfiable;
  }
  if (!parse_number(first_text, first)) return RangeOutcome::ignore;
  if (last_text.empty()) {
    last = size == 0 ? 0 : size - 1;
  } else if (!parse_number(last_text, last) || last < first) {
    return RangeOutcome::ignore;
  }
  if (first >= size) return RangeOutcome::unsatisfiable;
  range = {first, last >= size ? size - 1 : last};
  return RangeOutcome::satisfiable;
}

}  // namespace tiffany

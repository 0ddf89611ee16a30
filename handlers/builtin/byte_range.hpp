// Parsing a single HTTP Range header ("bytes=a-b", "bytes=a-", "bytes=-n").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tiffany {

struct ByteRange {
  std::uint64_t first;
  std::uint64_t last;  // inclusive
};

enum class RangeOutcome {
  ignore,          ///< no usable range (malformed, multiple ranges): send the whole file
  satisfiable,     ///< send `range` with 206
  unsatisfiable,   ///< 416
};

/// Interprets `header` against a file of `size` bytes.
RangeOutcome parse_byte_range(std::string_view header, std::uint64_t size, ByteRange& range);

}  // namespace tiffany

// CompressionSettings: what a listener or route compresses, with which codings and levels.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "http/engine/compression/coding.hpp"

namespace tiffany::http {

/// A route's effective `compress` config (the listener's, or the route's
/// own). Immutable once the site is built; shared by the worker's connections.
struct CompressionSettings {
  std::vector<Coding> codings{Coding::br, Coding::zstd, Coding::gzip};  // preference order, never empty
  std::uint64_t min_bytes = 1024;  // smaller bodies are sent as they are
  /// Media types compressed: "type/subtype" or "type/*", lower case.
  std::vector<std::string> types{"text/*", "application/json", "application/javascript", "image/svg+xml"};
  std::array<int, kCodingCount> levels{0, 5, 4, 3};  // by Coding: identity, gzip, br, zstd

  int level(Coding coding) const noexcept { return levels[static_cast<std::size_t>(coding)]; }
  /// True when a Content-Type value (parameters allowed, any case) is listed.
  bool compresses_type(std::string_view content_type) const noexcept;
};

}  // namespace tiffany::http

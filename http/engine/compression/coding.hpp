// Coding: the content codings Tiffany can produce (RFC 9110 §8.4.1).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace tiffany::http {

/// A content coding. `identity` means "not encoded".
enum class Coding : unsigned char { identity, gzip, br, zstd };

inline constexpr std::size_t kCodingCount = 4;

/// The token sent in Content-Encoding (and the suffix of an encoded ETag):
/// "gzip", "br", "zstd"; "identity" for identity.
constexpr std::string_view coding_name(Coding coding) noexcept {
  switch (coding) {
    case Coding::gzip: return "gzip";
    case Coding::br: return "br";
    case Coding::zstd: return "zstd";
    case Coding::identity: break;
  }
  return "identity";
}

/// The coding a config names ("gzip", "br", "zstd"), exactly; nullopt otherwise.
constexpr std::optional<Coding> coding_from_config_name(std::string_view name) noexcept {
  if (name == "gzip") return Coding::gzip;
  if (name == "br") return Coding::br;
  if (name == "zstd") return Coding::zstd;
  return std::nullopt;
}

/// The file name suffix of a precompressed sibling: ".gz", ".br", ".zst".
constexpr std::string_view coding_file_suffix(Coding coding) noexcept {
  switch (coding) {
    case Coding::gzip: return ".gz";
    case Coding::br: return ".br";
    case Coding::zstd: return ".zst";
    case Coding::identity: break;
  }
  return "";
}

}  // namespace tiffany::http

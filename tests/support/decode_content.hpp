// decode_content: test helper that decodes a gzip, br or zstd body with the libraries themselves.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tiffany::testing {

/// Decodes `encoded` by its Content-Encoding token ("gzip", "br", "zstd");
/// nullopt if it is not one complete, valid stream of that coding.
std::optional<std::string> decode_content(std::string_view coding, std::string_view encoded);

/// Decodes a prefix of a stream: all that the bytes given decode to, even if
/// the stream has not ended (to check that a flush made input decodable).
std::optional<std::string> decode_prefix(std::string_view coding, std::string_view encoded);

}  // namespace tiffany::testing

// decode_content: test helpers that decode (and make) gzip, br or zstd bodies with the libraries themselves.
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

/// Encodes `text` as one complete stream of `coding` ("gzip", "br", "zstd")
/// with the libraries' defaults, as a precompressed file would be made.
std::string encode_content(std::string_view coding, std::string_view text);

}  // namespace tiffany::testing

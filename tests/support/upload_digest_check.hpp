// What the upload_digest example plugin answers, computed here: the tests' expected checksums and bodies.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tiffany::testing {

/// FNV-1a, 64 bits, as 16 hex digits: the checksum upload_digest answers.
inline std::string fnv1a64(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char byte : bytes) {
    hash ^= static_cast<unsigned char>(byte);
    hash *= 0x100000001b3ULL;
  }
  char digits[17];
  const auto [end, error] = std::to_chars(digits, digits + sizeof digits, hash, 16);
  return std::string(16 - static_cast<std::size_t>(end - digits), '0') + std::string(digits, end);
}

/// A body whose checksum depends on every byte and its place.
inline std::string pattern_body(std::size_t size) {
  std::string body(size, '\0');
  for (std::size_t i = 0; i < size; ++i) body[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
  return body;
}

/// The part of upload_digest's JSON that says `body` (`bytes` long) arrived whole.
inline std::string digest_json(std::size_t bytes, std::string_view body) {
  return "\"bytes\":" + std::to_string(bytes) + ",\"fnv1a64\":\"" + fnv1a64(body) + "\"";
}

}  // namespace tiffany::testing

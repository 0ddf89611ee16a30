// UTF-8 validation for text that leaves the server as JSON (strict parsers refuse invalid UTF-8).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tiffany::http {

/// The length of the valid UTF-8 sequence (RFC 3629: no overlongs, no
/// surrogates, nothing above U+10FFFF) that starts `text`, or 0 when its
/// first byte does not start one. `text` must not be empty.
std::size_t utf8_sequence_length(std::string_view text) noexcept;

/// True when all of `text` is valid UTF-8.
bool is_valid_utf8(std::string_view text) noexcept;

/// Appends `text` to `out` with every byte that is not part of a valid UTF-8
/// sequence replaced by U+FFFD (the Unicode "maximal subpart" practice, one
/// replacement per bad byte).
void append_utf8_replacing_invalid(std::string_view text, std::string& out);

/// Appends `text` as the inside of a JSON string: `"` and `\` escaped, control
/// bytes and DEL as \u00XX, invalid UTF-8 as \ufffd. The result is always
/// accepted by a strict JSON parser and cannot break a line.
void append_json_string_content(std::string_view text, std::string& out);

/// Appends one byte as append_json_string_content would a byte below 0x80
/// (`"` and `\` escaped, control bytes and DEL as \u00XX); any other byte
/// as it is.
void append_json_escaped_ascii(char c, std::string& out);

}  // namespace tiffany::http

// Media types (Content-Type values): the type and its parameters (RFC 9110 §8.3.1).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tiffany::http {

/// True when the media type of `content_type` (before any ';') is `type`,
/// ignoring case and surrounding whitespace:
/// media_type_is("Application/JSON; charset=utf-8", "application/json").
bool media_type_is(std::string_view content_type, std::string_view type) noexcept;

/// The parameter `name` (case-insensitive) of `content_type`, unquoted
/// (backslash escapes resolved): "xyz" for `multipart/form-data;
/// boundary="xyz"`. nullopt if absent or malformed.
std::optional<std::string> media_type_param(std::string_view content_type, std::string_view name);

}  // namespace tiffany::http

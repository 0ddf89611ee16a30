// URI helpers: percent-decoding and path normalisation (RFC 3986).
#pragma once

#include <string>
#include <string_view>

namespace tiffany::http {

/// Appends the percent-decoded `text` to `out`. False on a malformed escape
/// or an encoded NUL. With `plus_is_space`, '+' decodes to ' ' (query strings).
bool percent_decode(std::string_view text, std::string& out, bool plus_is_space = false);

/// Turns the path part of a request-target into `out`: percent-decoded,
/// repeated slashes merged, "." and ".." segments removed (".." never climbs
/// above the root). False if it is not a valid origin-form path.
bool normalize_path(std::string_view raw_path, std::string& out);

}  // namespace tiffany::http

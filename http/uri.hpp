// URI helpers: percent-decoding and -encoding, path normalisation (RFC 3986).
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

/// Appends the decoded path `path` (a Request::path, a file name) to `out`
/// percent-encoded as an absolute path: '/', unreserved characters,
/// sub-delims, ':' and '@' stay, every other byte (controls, CR and LF, space,
/// '%', '?', '#', '"', non-ASCII) becomes %XX with upper-case hex. The result
/// is safe in a header (a Location) and names the same path once decoded.
void append_encoded_path(std::string_view path, std::string& out);

/// Appends a query still encoded as received (a Request::query) to `out`,
/// percent-encoding only bytes no URI may hold unencoded: controls, space,
/// DEL, non-ASCII and the characters " < > \ ^ ` { | }. A valid query is
/// copied unchanged.
void append_encoded_query(std::string_view query, std::string& out);

/// True when `value` is a valid Host field value (RFC 9112 §3.2, RFC 3986
/// §3.2.2): a non-empty uri-host (reg-name, IPv4 or a bracketed IP literal)
/// and an optional ":" port of digits. No userinfo, path or whitespace.
bool is_valid_host(std::string_view value) noexcept;

}  // namespace tiffany::http

// is_known_method: the methods HTTP/1.1's parser (llhttp) knows, for HTTP/2 requests to be judged alike.
#pragma once

#include <string_view>

namespace tiffany::http {

/// True when `method` is one llhttp parses (GET, POST, ..., WebDAV's): an
/// HTTP/1.1 request naming another is 501, and an HTTP/2 one is answered the same.
bool is_known_method(std::string_view method) noexcept;

}  // namespace tiffany::http

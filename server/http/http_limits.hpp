// HttpLimits: the sizes past which a request is refused.
#pragma once

#include <cstddef>

namespace tiffany::http {

struct HttpLimits {
  std::size_t max_header_bytes = 16 * 1024;  // request line + header fields → 431
  std::size_t max_uri_bytes = 8 * 1024;      // request-target → 414
  std::size_t max_body_bytes = 1024 * 1024;  // decoded body → 413
};

}  // namespace tiffany::http

// The text of OpenSSL's error queue.
#include "net/engine/tls/openssl_handles.hpp"

#include <openssl/err.h>

namespace tiffany::tls {

std::string take_openssl_error(const char* fallback) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return fallback;
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : fallback;
}

}  // namespace tiffany::tls

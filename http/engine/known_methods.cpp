// is_known_method: llhttp's method table, compared as sent (methods are case-sensitive, RFC 9110 §9.1).
#include "http/engine/known_methods.hpp"

#include <llhttp.h>

namespace tiffany::http {

bool is_known_method(std::string_view method) noexcept {
#define TIFFANY_METHOD_NAME(number, name, text) #text,
  static constexpr std::string_view kKnown[] = {HTTP_METHOD_MAP(TIFFANY_METHOD_NAME)};
#undef TIFFANY_METHOD_NAME
  for (const std::string_view known : kKnown) {
    if (known == method) return true;
  }
  return false;
}

}  // namespace tiffany::http

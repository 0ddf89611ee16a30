// The printable names of ClientErrorKind and ClientStage.
#include <tiffany/client/client_error.hpp>

namespace tiffany {

std::string_view to_string(ClientErrorKind kind) noexcept {
  switch (kind) {
    case ClientErrorKind::bad_request: return "bad_request";
    case ClientErrorKind::resolve: return "resolve";
    case ClientErrorKind::connect: return "connect";
    case ClientErrorKind::tls: return "tls";
    case ClientErrorKind::timeout: return "timeout";
    case ClientErrorKind::protocol: return "protocol";
    case ClientErrorKind::too_large: return "too_large";
    case ClientErrorKind::truncated: return "truncated";
    case ClientErrorKind::closed: return "closed";
    case ClientErrorKind::io: return "io";
  }
  return "unknown";
}

std::string_view to_string(ClientStage stage) noexcept {
  switch (stage) {
    case ClientStage::none: return "none";
    case ClientStage::connect: return "connect";
    case ClientStage::write: return "write";
    case ClientStage::first_byte: return "first_byte";
    case ClientStage::read: return "read";
    case ClientStage::total: return "total";
  }
  return "unknown";
}

}  // namespace tiffany

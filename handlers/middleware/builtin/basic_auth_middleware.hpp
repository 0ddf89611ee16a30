// basic_auth: HTTP Basic authentication (RFC 7617) against crypt hashes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include <tiffany/handlers/middleware/middleware.hpp>

#include "handlers/middleware/builtin/password_hash.hpp"

namespace tiffany {

/// Settings: `realm` (default "tiffany"), `users` (object: user name →
/// SHA-crypt or bcrypt hash, required, not empty). A request with valid
/// credentials runs the rest of the chain with the request attribute `user`
/// set to the user name; any other gets 401 with `WWW-Authenticate: Basic
/// realm="..."`.
///
/// Why a cache: a bcrypt check takes tens of milliseconds of the worker's
/// thread; credentials that passed once are remembered (per worker, at most
/// kCacheEntries, then forgotten all at once) so a client sending the same
/// Authorization on every request pays once. Failures are never cached.
class BasicAuthMiddleware final : public Middleware {
 public:
  static constexpr std::size_t kCacheEntries = 1024;

  explicit BasicAuthMiddleware(const HandlerParams& params);
  Task<void> handle(http::Request& request, http::Response& response, Next next) override;

  /// The user `authorization` (an Authorization field value) names with a
  /// correct password, or empty.
  std::string authenticate(std::string_view authorization);

 private:
  std::string challenge_;                      // WWW-Authenticate value
  std::map<std::string, std::string> users_;   // name → hash
  std::string decoy_hash_;                     // checked for unknown users, so they take as long
  PasswordChecker checker_;
  std::unordered_map<std::string, std::string> verified_;  // Authorization value → user
};

/// The bytes of standard base64 `text` (padding required), or nullopt.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace tiffany

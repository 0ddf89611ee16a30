// basic_auth: HTTP Basic authentication (RFC 7617) against crypt hashes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include <tiffany/coro/offload_pool.hpp>
#include <tiffany/handlers/middleware/middleware.hpp>

#include "handlers/middleware/builtin/password_hash.hpp"

namespace tiffany {

/// Settings: `realm` (default "tiffany"), `users` (object: user name →
/// SHA-crypt or bcrypt hash, required, not empty). A request with valid
/// credentials runs the rest of the chain with the request attribute `user`
/// set to the user name; any other gets 401 with `WWW-Authenticate: Basic
/// realm="..."`.
///
/// Why the offload pool: a bcrypt check takes milliseconds to hundreds of
/// them; on the worker it would stall every connection the worker serves,
/// and since failures are never cached any client could do so at will with
/// wrong passwords. The request waits for its check; the worker does not.
/// Why a cache: credentials that passed once are remembered (per worker, at
/// most kCacheEntries, then forgotten all at once) so a client sending the
/// same Authorization on every request pays once.
class BasicAuthMiddleware final : public Middleware {
 public:
  static constexpr std::size_t kCacheEntries = 1024;

  /// Checks passwords on `pool` (the process-wide offload pool by default).
  explicit BasicAuthMiddleware(const HandlerParams& params, OffloadPool& pool = OffloadPool::default_pool());
  Task<void> handle(http::Request& request, http::Response& response, Next next) override;

  /// The user `authorization` (an Authorization field value) names with a
  /// correct password, or empty. The hash check runs on the offload pool.
  Task<std::string> authenticate(std::string authorization);
  /// Passwords checked against a hash so far (not answered from the cache).
  std::size_t hash_checks() const noexcept { return hash_checks_; }

 private:
  std::string challenge_;                      // WWW-Authenticate value
  std::map<std::string, std::string> users_;   // name → hash
  std::string decoy_hash_;                     // checked for unknown users, so they take as long
  OffloadPool& pool_;
  std::size_t hash_checks_ = 0;
  std::unordered_map<std::string, std::string> verified_;  // Authorization value → user
};

/// The bytes of standard base64 `text` (padding required), or nullopt.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace tiffany

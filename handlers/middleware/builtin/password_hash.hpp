// PasswordHashes: checks passwords against SHA-crypt ($5$, $6$) and bcrypt ($2b$, $2y$) hashes with libxcrypt.
#pragma once

#include <memory>
#include <string>
#include <string_view>

struct crypt_data;

namespace tiffany {

/// What is wrong with `hash` as a stored password hash, or empty when it is
/// one of the accepted kinds and libxcrypt can check against it.
std::string password_hash_problem(const std::string& hash);

/// Whether `a` and `b` are equal, in a time that depends on their lengths only.
bool constant_time_equal(std::string_view a, std::string_view b) noexcept;

/// Checks passwords with crypt_rn into a work area of its own (about 32 KiB,
/// allocated once). Not thread-safe: one per worker (per middleware instance).
class PasswordChecker {
 public:
  PasswordChecker();
  ~PasswordChecker();
  PasswordChecker(const PasswordChecker&) = delete;
  PasswordChecker& operator=(const PasswordChecker&) = delete;

  /// Whether `password` hashes to `hash` (a hash password_hash_problem accepted).
  bool matches(std::string_view password, const std::string& hash);

 private:
  std::unique_ptr<crypt_data> data_;
};

}  // namespace tiffany

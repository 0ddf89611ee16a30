// password_hash: checks passwords against SHA-crypt ($5$, $6$) and bcrypt ($2b$, $2y$) hashes with libxcrypt.
#pragma once

#include <string>
#include <string_view>

namespace tiffany {

/// What is wrong with `hash` as a stored password hash, or empty when it is
/// one of the accepted kinds and libxcrypt can check against it.
std::string password_hash_problem(const std::string& hash);

/// Whether `a` and `b` are equal, in a time that depends on their lengths only.
bool constant_time_equal(std::string_view a, std::string_view b) noexcept;

/// Whether `password` hashes to `hash` (a hash password_hash_problem
/// accepted), with crypt_rn into a work area of the calling thread's own
/// (about 32 KiB, made on its first call). Thread-safe; slow by design (a
/// bcrypt check takes milliseconds to hundreds of them): call it on the
/// offload pool, never on a worker.
bool password_matches(std::string password, std::string hash);

}  // namespace tiffany

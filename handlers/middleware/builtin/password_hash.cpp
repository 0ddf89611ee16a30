// password_matches: crypt_rn against a stored hash, compared in constant time.
#include "handlers/middleware/builtin/password_hash.hpp"

#include <crypt.h>

#include <cstring>
#include <memory>

namespace tiffany {

std::string password_hash_problem(const std::string& hash) {
  const bool known = hash.rfind("$5$", 0) == 0 || hash.rfind("$6$", 0) == 0 || hash.rfind("$2b$", 0) == 0 ||
                     hash.rfind("$2y$", 0) == 0;
  if (!known) return "expected a SHA-crypt (\"$5$...\", \"$6$...\") or bcrypt (\"$2b$...\", \"$2y$...\") hash";
  auto data = std::make_unique<crypt_data>();
  const char* out = crypt_rn("probe", hash.c_str(), data.get(), sizeof(crypt_data));
  // Why this check: crypt_rn fails (null, or a "*" failure token) on a
  // malformed salt or cost; a hash it cannot use would refuse every login.
  if (out == nullptr || out[0] == '*') return "not a well-formed hash (libxcrypt cannot check passwords against it)";
  const std::string probed(out);
  // The hash part must be complete: the output of crypt has the setting's length.
  if (probed.size() != hash.size()) return "not a complete hash (its length is wrong for its kind)";
  return {};
}

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  // Why volatile: keeps the compiler from turning the loop into an early exit.
  volatile unsigned char result = difference;
  return result == 0;
}

bool password_matches(std::string password, std::string hash) {
  if (password.find('\0') != std::string::npos) return false;  // crypt would stop at it
  thread_local const std::unique_ptr<crypt_data> data = std::make_unique<crypt_data>();
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* out = crypt_rn(password.c_str(), hash.c_str(), data.get(), sizeof(crypt_data));
  const bool matched = out != nullptr && out[0] != '*' && constant_time_equal(out, hash);
  std::memset(data.get(), 0, sizeof(crypt_data));  // no password bytes left behind
  return matched;
}

}  // namespace tiffany

// basic_auth: credentials parsing, hash checks, the 401 challenge.
#include "handlers/middleware/builtin/basic_auth_middleware.hpp"

#include <algorithm>
#include <cctype>

#include <tiffany/coro/offload.hpp>
#include <tiffany/http/headers.hpp>

#include "handlers/middleware/builtin/settings.hpp"

namespace tiffany {
namespace {

int base64_value(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool iequal_prefix(std::string_view text, std::string_view prefix) noexcept {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> decode_base64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    int values[4];
    int padding = 0;
    for (int j = 0; j < 4; ++j) {
      const char c = text[i + static_cast<std::size_t>(j)];
      if (c == '=' && i + 4 == text.size() && j >= 2) {
        values[j] = 0;
        ++padding;
      } else if (padding > 0 || (values[j] = base64_value(c)) < 0) {
        return std::nullopt;
      }
    }
    const unsigned triple = (static_cast<unsigned>(values[0]) << 18) | (static_cast<unsigned>(values[1]) << 12) |
                            (static_cast<unsigned>(values[2]) << 6) | static_cast<unsigned>(values[3]);
    out += static_cast<char>((triple >> 16) & 0xff);
    if (padding < 2) out += static_cast<char>((triple >> 8) & 0xff);
    if (padding < 1) out += static_cast<char>(triple & 0xff);
  }
  return out;
}

BasicAuthMiddleware::BasicAuthMiddleware(const HandlerParams& params, OffloadPool& pool) : pool_(pool) {
  const std::string realm = params.string_or("realm", "tiffany");
  if (realm.empty() || realm.find_first_of("\"\\") != std::string::npos ||
      http::find_invalid_field_value_byte(realm) != std::string::npos) {
    throw ParamError("realm", "expected a non-empty realm without '\"', '\\' or control characters");
  }
  challenge_ = "Basic realm=\"" + realm + "\", charset=\"UTF-8\"";
  if (params.json("users") == nullptr) throw ParamError("users", "missing required key (an object: user name → hash)");
  for (auto& [name, hash] : middleware_settings::string_map(params, "users")) {
    if (name.empty() || name.find(':') != std::string::npos) {
      throw ParamError("users." + name, "a user name must be non-empty and hold no ':'");
    }
    if (const std::string problem = password_hash_problem(hash); !problem.empty()) {
      throw ParamError("users." + name, problem);
    }
    users_.emplace(name, hash);
  }
  if (users_.empty()) throw ParamError("users", "expected at least one user");
  decoy_hash_ = users_.begin()->second;
}

Task<std::string> BasicAuthMiddleware::authenticate(std::string authorization) {
  if (const auto cached = verified_.find(authorization); cached != verified_.end()) co_return cached->second;
  if (!iequal_prefix(authorization, "Basic ")) co_return std::string();
  std::string_view encoded = std::string_view(authorization).substr(6);
  while (!encoded.empty() && encoded.front() == ' ') encoded.remove_prefix(1);
  while (!encoded.empty() && (encoded.back() == ' ' || encoded.back() == '\t')) encoded.remove_suffix(1);
  std::optional<std::string> decoded = decode_base64(encoded);
  if (!decoded) co_return std::string();
  const std::size_t colon = decoded->find(':');
  if (colon == std::string::npos) co_return std::string();
  std::string user = decoded->substr(0, colon);
  std::string password = decoded->substr(colon + 1);
  const auto found = users_.find(user);
  // Why the decoy: an unknown user takes as long as a wrong password, so
  // timing does not tell which user names exist.
  std::string hash = found == users_.end() ? decoy_hash_ : found->second;
  ++hash_checks_;
  const bool matched =
      co_await offload(pool_, &password_matches, std::move(password), std::move(hash));
  if (!matched || found == users_.end()) co_return std::string();
  if (verified_.size() >= kCacheEntries) verified_.clear();
  verified_.emplace(std::move(authorization), user);
  co_return user;
}

Task<void> BasicAuthMiddleware::handle(http::Request& request, http::Response& response, Next next) {
  const std::optional<std::string_view> authorization = request.headers.get("Authorization");
  std::string user;
  if (authorization) {
    std::string value(*authorization);  // Why named: no temporary inside a co_await operand (g++ 12)
    user = co_await authenticate(std::move(value));
  }
  if (user.empty()) {
    response.status = 401;
    response.headers.set("WWW-Authenticate", challenge_);
    response.headers.set("Content-Type", "text/plain; charset=utf-8");
    response.body = "401 Unauthorized\n";
    co_return;
  }
  request.set_attribute("user", user);
  co_await next(request, response);
}

}  // namespace tiffany

// Request ids: accepting a client's X-Request-Id, or making a fresh one.
#pragma once

#include <string>
#include <string_view>

namespace tiffany::http {

/// True for 1 to 128 characters from `A-Za-z0-9-_.:+/=@` (no spaces or
/// control characters, so the id is safe in headers and log lines).
bool is_valid_request_id(std::string_view id) noexcept;

/// Writes a fresh id into `out`: 32 lowercase hex digits (128 random bits),
/// from a generator per thread seeded by the kernel; no system call per id.
void make_request_id(std::string& out);

}  // namespace tiffany::http

// Raw HTTP/1.1 for integration tests: one request on a socket, its response read by Content-Length.
#pragma once

#include <chrono>
#include <string>

namespace tiffany::testing {

/// Reads one response (head + Content-Length body) from `fd`; "" if the
/// connection ended first or nothing complete came within `timeout`.
std::string read_response(int fd, std::chrono::milliseconds timeout = std::chrono::seconds(5));
bool send_all(int fd, const std::string& bytes);
/// One GET (with an X-Request-Id when `request_id` is given) on `fd`, or on a
/// new connection to 127.0.0.1:`port`; its response, or "" on failure.
std::string get_on(int fd, const std::string& path, const std::string& request_id = "");
std::string get(int port, const std::string& path, const std::string& request_id = "");
/// The status of an HTTP/1.1 response, or 0.
int status_of(const std::string& response);
std::string body_of(const std::string& response);
bool says_close(const std::string& response);

}  // namespace tiffany::testing

// Test helpers for the proxy tests: one HTTP exchange over a raw loopback socket, and config text.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace tiffany::testing {

/// Connects to 127.0.0.1:`port`, sends `raw`, reads until the server closes
/// (or `timeout`); "<timeout>" is appended if it never closed.
std::string http_exchange(int port, const std::string& raw,
                          std::chrono::milliseconds timeout = std::chrono::seconds(10));

/// Reads from a connected `fd` until the server closes (or `timeout`).
std::string http_exchange_rest(int fd, std::chrono::milliseconds timeout = std::chrono::seconds(30));

/// "GET `path` HTTP/1.1" with Host and Connection: close, plus `extra` fields.
std::string get_request(const std::string& path, const std::string& extra = "");

/// The status code of a response text (0 if none).
int status_of(const std::string& response);
/// The body of a response text (after the head; chunked framing left as sent).
std::string body_of(const std::string& response);

/// The payload of a chunked body (chunk extensions skipped, trailers
/// dropped); nullopt if the framing is malformed or ends early.
std::optional<std::string> dechunk(const std::string& body);

/// Writes all of `bytes` to `fd`; false if the peer went away.
bool send_all(int fd, const std::string& bytes);

}  // namespace tiffany::testing

// Helpers for the proxy's splice tests: bodies with a recognisable pattern, responses read off a kept-alive
// connection, the spliced-bytes counter, and the pipes a process holds.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace tiffany::testing {

/// `size` bytes that differ with their offset and with `size` (a shifted or
/// foreign byte shows).
std::string pattern_body(std::size_t size);

/// One response read from a kept-alive connection: its head, and the body
/// its Content-Length frames (none for HEAD, 204, 304). `closed`: the server
/// closed before the body was whole (or before any head).
struct ReadResponse {
  std::string head;
  std::string body;
  bool closed = false;
};
ReadResponse read_response(int fd, bool head_request = false);

/// The Content-Length of a head (-1 when it has none).
long long content_length_of(const std::string& head);

/// tiffany_proxy_spliced_bytes_total of upstream "app" (every server summed), from the proxy's /metrics on `port`.
double spliced_bytes(int port);

/// The pipes process `pid` has open (both ends count).
int open_pipes(pid_t pid);

}  // namespace tiffany::testing

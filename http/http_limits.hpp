// HttpLimits: the sizes past which a request is refused.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace tiffany::http {

struct HttpLimits {
  std::size_t max_header_bytes = 16 * 1024;  // request line + header fields → 431
  std::size_t max_header_count = 100;        // header (and trailer) fields → 431, checked as each arrives
  std::size_t max_uri_bytes = 8 * 1024;      // request-target → 414
  std::size_t max_body_bytes = 1024 * 1024;  // decoded body → 413
  std::uint64_t max_linger_bytes = 64 * 1024 * 1024;  // dropped while lingering after a last response
};

/// How long a connection may take at each stage before it is closed.
struct HttpTimeouts {
  std::chrono::milliseconds header{10'000};     // whole request line + headers, from the first byte → 408
  std::chrono::milliseconds body{60'000};       // between two reads of a body → 408
  std::chrono::milliseconds keepalive{10'000};  // idle, waiting for the next request → quiet close
  std::chrono::milliseconds write{60'000};      // a response to a peer that does not read → close
  std::chrono::milliseconds handler{0};         // a handler's whole run → 503; zero: no limit
  std::chrono::milliseconds body_total{300'000};  // a whole body, from the end of its headers → 408; zero: no limit
  std::chrono::milliseconds linger{5'000};        // reading what a peer still sends after an error; zero: none
  std::chrono::milliseconds linger_read{2'000};   // while lingering: silence that ends it
};

}  // namespace tiffany::http

// HttpClientOptions: pool sizes, per-stage timeouts, TLS and limits of an HttpClient.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include <tiffany/net/tcp_connect.hpp>

namespace tiffany {

class Resolver;

struct ClientPoolOptions {
  /// Idle keep-alive connections kept per origin; more are closed when released.
  std::size_t max_idle_per_origin = 32;
  /// Connections per origin, busy or idle; past it a request waits (first in,
  /// first served) for one to be released, under its own timeouts.
  std::size_t max_per_origin = 256;
  /// An idle connection is closed after this long unused.
  std::chrono::milliseconds idle_timeout{60000};
};

/// Each stage's own limit; zero means none.
struct ClientTimeouts {
  std::chrono::milliseconds connect{5000};      ///< resolving, connecting and the TLS handshake
  std::chrono::milliseconds write{30000};       ///< writing the request head and body
  std::chrono::milliseconds first_byte{30000};  ///< from the request sent to the response head begun
  std::chrono::milliseconds read{30000};        ///< between two pieces of the response
  std::chrono::milliseconds total{0};           ///< the whole exchange, body included; 0: none
};

/// Sizes past which a response is refused (ClientErrorKind::too_large).
struct ClientResponseLimits {
  std::size_t max_header_bytes = 16 * 1024;   ///< status line and fields of one head
  std::size_t max_header_count = 100;         ///< fields of one head
  std::size_t max_trailer_bytes = 16 * 1024;  ///< the trailer section of a chunked body
  std::size_t max_interim_responses = 16;     ///< 1xx heads before the final one
  /// Bodies read whole (fetch/get/post); a streamed read (open) has no limit.
  std::uint64_t max_body_bytes = 8 * 1024 * 1024;
};

struct HttpClientOptions {
  ClientPoolOptions pool;
  ClientTimeouts timeouts;
  ClientResponseLimits limits;
  /// For https:// origins (verification is on by default).
  TlsClientOptions tls;
  /// The resolver to use; null: this thread's (Resolver::for_this_thread()).
  Resolver* resolver = nullptr;
  /// "http://app.internal:8080": request URLs that are a path alone ("/x")
  /// go to this origin (parsed once, not per request); empty: every URL is
  /// absolute. Its own path, if any, is ignored.
  std::string base_url;
};

}  // namespace tiffany

// tcp_connect: an outbound TCP (optionally TLS) connection by host name, happy-eyeballs style.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/coro/task.hpp>
#include <tiffany/net/byte_stream.hpp>
#include <tiffany/net/socket_address.hpp>

namespace tiffany {

class Resolver;

/// The TLS client side of a connection.
struct TlsClientOptions {
  /// Check the server's certificate chain and name (on by default; off only for tests and labs).
  bool verify_peer = true;
  /// PEM file of the CAs to trust; empty: the system's store.
  std::string ca_file;
  /// Sent as SNI and checked against the certificate; empty: the host given
  /// to tcp_connect (an IP literal is then checked as an address, with no SNI).
  std::string server_name;
  /// Protocols offered by ALPN, most wanted first ("h2", "http/1.1"); empty: none.
  std::vector<std::string> alpn;
};

struct ConnectOptions {
  /// The whole connect: resolving, connecting and the TLS handshake.
  std::chrono::milliseconds timeout{10000};
  /// RFC 8305's "connection attempt delay": the next address is tried after
  /// this long, or at once when the current attempt fails.
  std::chrono::milliseconds attempt_delay{250};
  /// Set: TLS over the connection (the stream reports the agreed ALPN).
  std::optional<TlsClientOptions> tls;
  /// The resolver to use; null: this thread's (Resolver::for_this_thread()).
  Resolver* resolver = nullptr;
};

/// Why a connect failed.
enum class ConnectErrorKind {
  resolve,      ///< the name did not resolve (the message says why)
  refused,      ///< every address refused (nothing listens there)
  unreachable,  ///< no route to any address
  timeout,      ///< ConnectOptions::timeout passed
  tls,          ///< the TLS handshake failed: an untrusted or misnamed certificate, no common protocol…
  other,        ///< anything else (out of descriptors…)
};

/// The printable name of a kind ("refused").
std::string_view to_string(ConnectErrorKind kind) noexcept;

struct ConnectError {
  ConnectErrorKind kind = ConnectErrorKind::other;
  std::string message;  ///< "connecting to db.test:5432: 192.0.2.1:5432: Connection refused"
};

/// A connected stream (it owns the socket), or why there is none.
class ConnectResult {
 public:
  ConnectResult(std::unique_ptr<ByteStream> stream, SocketAddress peer)
      : stream_(std::move(stream)), peer_(peer) {}
  ConnectResult(ConnectError error) : error_(std::move(error)) {}

  bool ok() const noexcept { return stream_ != nullptr; }
  explicit operator bool() const noexcept { return ok(); }
  /// The stream (TLS, if asked); take it with std::move. Only when ok().
  std::unique_ptr<ByteStream>& stream() noexcept { return stream_; }
  /// The address that answered.
  const SocketAddress& peer() const noexcept { return peer_; }
  /// Only when !ok().
  const ConnectError& error() const noexcept { return error_; }

 private:
  std::unique_ptr<ByteStream> stream_;
  SocketAddress peer_;
  ConnectError error_;
};

/// Connects to `host` (a name, or an IPv4/IPv6 literal) on `port`: resolves
/// it, then tries its addresses RFC 8305 style (families interleaved, the
/// next attempt after options.attempt_delay or as soon as one fails, the
/// first connected wins and the others are canceled), sets TCP_NODELAY and,
/// if asked, runs the TLS handshake. Failures are values; canceling the
/// caller cancels every attempt and closes what they opened. Runs on the
/// calling worker's reactor; the stream is used on that thread.
Task<ConnectResult> tcp_connect(std::string host, std::uint16_t port, ConnectOptions options = {});

}  // namespace tiffany

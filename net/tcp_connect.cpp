// tcp_connect: resolve, happy-eyeballs connect, then TLS if asked, all under one deadline.
#include <tiffany/net/tcp_connect.hpp>

#include <cerrno>
#include <cstring>
#include <utility>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/net/resolver.hpp>
#include <tiffany/net/socket_stream.hpp>

#include "net/engine/tls/tls_stream.hpp"
#include "net/internal/happy_eyeballs.hpp"
#include "net/internal/tls/client_context.hpp"

namespace tiffany {
namespace {

bool unreachable_error(int error) {
  return error == ENETUNREACH || error == EHOSTUNREACH || error == EADDRNOTAVAIL || error == EAFNOSUPPORT ||
         error == ENETDOWN || error == EHOSTDOWN;
}

// Every attempt failed: refused if any address answered with a refusal,
// unreachable if any had no route, timeout for the kernel's own, else other.
ConnectError failed_attempts(const std::string& target, const detail::EyeballsOutcome& race) {
  ConnectErrorKind kind = ConnectErrorKind::other;
  bool refused = false, unreachable = false, timed_out = false;
  std::string detail;
  for (const auto& [address, error] : race.failures) {
    refused = refused || error == ECONNREFUSED;
    unreachable = unreachable || unreachable_error(error);
    timed_out = timed_out || error == ETIMEDOUT;
    detail += (detail.empty() ? "" : "; ") + address.to_string() + ": " + std::strerror(error);
  }
  if (refused) {
    kind = ConnectErrorKind::refused;
  } else if (unreachable) {
    kind = ConnectErrorKind::unreachable;
  } else if (timed_out) {
    kind = ConnectErrorKind::timeout;
  }
  return ConnectError{kind, "connecting to " + target + ": " + detail};
}

Task<ConnectResult> connect_steps(const std::string& host, std::uint16_t port, const ConnectOptions& options,
                                  const std::string& target) {
  // Why first: a TLS setting that cannot work (a missing CA file) fails before any traffic.
  std::string why;
  SSL_CTX* context = options.tls ? tls::client_context(*options.tls, why) : nullptr;
  if (options.tls && context == nullptr) {
    co_return ConnectError{ConnectErrorKind::tls, "connecting to " + target + " with TLS: " + why};
  }
  Resolver& resolver = options.resolver != nullptr ? *options.resolver : Resolver::for_this_thread();
  const ResolveResult resolved = co_await resolver.resolve(host);
  if (!resolved) {
    co_return ConnectError{ConnectErrorKind::resolve, "connecting to " + target + ": " + resolved.error().message};
  }
  std::vector<SocketAddress> addresses = detail::interleave_families(resolved.addresses());
  for (SocketAddress& address : addresses) address.set_port(port);

  detail::EyeballsOutcome race = co_await detail::happy_eyeballs(std::move(addresses), options.attempt_delay,
                                                                 &detail::connect_tcp);
  if (!race.socket) co_return failed_attempts(target, race);
  if (!options.tls) co_return ConnectResult(std::make_unique<SocketStream>(std::move(race.socket)), race.address);

  tls::SslPtr ssl = tls::new_client_connection(context, *options.tls, host, why);
  if (!ssl) co_return ConnectError{ConnectErrorKind::tls, "connecting to " + target + " with TLS: " + why};
  auto stream = std::make_unique<tls::TlsStream>(std::move(race.socket), std::move(ssl));
  const bool established = co_await stream->handshake();
  if (!established) {
    co_return ConnectError{ConnectErrorKind::tls, "connecting to " + target + ": TLS handshake with " +
                                                      race.address.to_string() + " failed: " +
                                                      tls::client_handshake_failure(stream->ssl(),
                                                                                    stream->handshake_failure())};
  }
  co_return ConnectResult(std::move(stream), race.address);
}

}  // namespace

std::string_view to_string(ConnectErrorKind kind) noexcept {
  switch (kind) {
    case ConnectErrorKind::resolve:
      return "resolve";
    case ConnectErrorKind::refused:
      return "refused";
    case ConnectErrorKind::unreachable:
      return "unreachable";
    case ConnectErrorKind::timeout:
      return "timeout";
    case ConnectErrorKind::tls:
      return "tls";
    case ConnectErrorKind::other:
      break;
  }
  return "other";
}

Task<ConnectResult> tcp_connect(std::string host, std::uint16_t port, ConnectOptions options) {
  const bool bracketed = host.find(':') != std::string::npos && !host.starts_with('[');
  const std::string target = (bracketed ? "[" + host + "]" : host) + ":" + std::to_string(port);
  Deadline deadline = Deadline::after(options.timeout);
  Timed<ConnectResult> result = co_await deadline.guard(connect_steps(host, port, options, target));
  if (result.timed_out()) {
    co_return ConnectError{ConnectErrorKind::timeout, "connecting to " + target + ": no connection within " +
                                                          std::to_string(options.timeout.count()) + " ms"};
  }
  co_return std::move(*result);
}

}  // namespace tiffany

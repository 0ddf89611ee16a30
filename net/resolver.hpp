// Resolver: host names to addresses with c-ares on the worker's reactor, cached per worker.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/net/socket_address.hpp>

namespace tiffany {

namespace detail {
class AresChannel;
}  // namespace detail

/// Why a name did not resolve.
enum class ResolveErrorKind {
  not_found,       ///< no such name, or no address of it (NXDOMAIN, NODATA, not in /etc/hosts)
  server_failure,  ///< the name servers failed or refused (SERVFAIL, REFUSED, bad answers)
  timeout,         ///< no answer from any name server in time
  bad_name,        ///< not a host name (empty, too long, bad characters)
  other,           ///< the resolver could not run (no memory, shut down, bad configuration)
};

/// The printable name of a kind ("not_found").
std::string_view to_string(ResolveErrorKind kind) noexcept;

struct ResolveError {
  ResolveErrorKind kind = ResolveErrorKind::other;
  std::string message;  ///< says which name and why: `resolving "x.test": Domain name not found`
};

/// The addresses of a name (ports 0), or why there are none: an error is a
/// value to test, never an exception.
class ResolveResult {
 public:
  ResolveResult(std::vector<SocketAddress> addresses) : addresses_(std::move(addresses)) {}
  ResolveResult(ResolveError error) : error_(std::move(error)), failed_(true) {}

  bool ok() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return ok(); }
  /// In the resolver's order (c-ares sorts by RFC 6724); not empty when ok().
  const std::vector<SocketAddress>& addresses() const noexcept { return addresses_; }
  /// Only when !ok().
  const ResolveError& error() const noexcept { return error_; }

 private:
  std::vector<SocketAddress> addresses_;
  ResolveError error_;
  bool failed_ = false;
};

struct ResolverOptions {
  /// Name servers as "ip" or "ip:port" ("[::1]:53" for IPv6); empty: the
  /// system's (/etc/resolv.conf). /etc/hosts is read first either way.
  std::vector<std::string> servers;
  /// How long to wait for one server's answer, and how many rounds to try.
  std::chrono::milliseconds attempt_timeout{2000};
  int tries = 2;
  /// How long a "no such name" answer is remembered.
  std::chrono::seconds negative_ttl{5};
  /// Answers are cached for their TTL, but never longer than this.
  std::chrono::seconds max_ttl{300};
  /// Names remembered at most (beyond it, expired ones go, then all).
  std::size_t max_cached = 4096;
  /// The cache's clock; empty: the scheduler's now(). Tests set it to step
  /// TTLs without waiting.
  std::function<Scheduler::Clock::time_point()> clock;
};

/// A c-ares channel driven by the calling thread's reactor: its sockets are
/// watched through the reactor and its timeouts are the scheduler's timers,
/// so a lookup parks only the task that asked. Answers are cached for their
/// TTL, failures ("not found") briefly.
///
/// Threads: one Resolver per worker thread, used only there (see
/// for_this_thread()). Lifetime: it may be destroyed while lookups are in
/// flight (they finish with an error); a task awaiting resolve() must not
/// outlive the Resolver it called.
class Resolver {
 public:
  /// Throws std::runtime_error if c-ares refuses the options (a bad server address).
  explicit Resolver(ResolverOptions options = {});
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;
  ~Resolver();

  /// This worker's resolver with the system's configuration (its
  /// scheduler's: one a worker thread, one a simulated worker), made on
  /// first use and destroyed with the scheduler; outside any, this thread's.
  static Resolver& for_this_thread();

  /// The addresses of `host`: a numeric IPv4 or IPv6 literal at once, else
  /// /etc/hosts, the cache, then DNS (A and AAAA). Canceling the caller
  /// abandons the lookup safely (its answer still fills the cache).
  Task<ResolveResult> resolve(std::string host);

  /// Names in the cache (answers and remembered failures), expired or not.
  std::size_t cached() const noexcept;

 private:
  std::shared_ptr<detail::AresChannel> channel_;
};

/// `co_await resolve("example.com")`: Resolver::for_this_thread().resolve(host).
Task<ResolveResult> resolve(std::string host);

}  // namespace tiffany

// AresChannel: one c-ares channel driven by the reactor, with the resolver's cache.
#pragma once

#include <ares.h>

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include <tiffany/coro/promise.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/net/resolver.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "net/internal/resolve_cache.hpp"

namespace tiffany::detail {

/// The machinery behind a Resolver. c-ares never blocks: it tells us which
/// sockets it wants watched (its socket-state callback), and we keep them
/// in an epoll set of our own whose one descriptor the reactor watches
/// (ReadWait). While lookups are pending one driver task runs: it waits for
/// that descriptor or c-ares' next timeout (a Deadline), then lets c-ares
/// process what is ready. No lookup pending, no task.
///
/// Shared (std::shared_ptr) by the Resolver, the driver and each lookup in
/// progress, so whichever ends last frees it. One thread.
class AresChannel : public std::enable_shared_from_this<AresChannel> {
 public:
  /// Throws std::runtime_error naming the option c-ares refused.
  explicit AresChannel(ResolverOptions options);
  AresChannel(const AresChannel&) = delete;
  AresChannel& operator=(const AresChannel&) = delete;
  ~AresChannel();

  /// See Resolver::resolve.
  static Task<ResolveResult> resolve(std::shared_ptr<AresChannel> self, std::string host);
  std::size_t cached() const noexcept { return cache_.size(); }

 private:
  struct Lookup;
  /// The driver's hold on the channel; driving_ is true while one lives.
  /// Why the driver's one parameter: it lives in the driver's frame, so a
  /// driver destroyed without running to its end (its scheduler went first,
  /// even before it started) still clears driving_, and the next lookup
  /// starts another; and it clears the flag before it lets the channel go.
  class DriverMark {
   public:
    explicit DriverMark(std::shared_ptr<AresChannel> channel) noexcept;
    DriverMark(DriverMark&& other) noexcept = default;
    DriverMark& operator=(DriverMark&&) = delete;
    ~DriverMark();
    AresChannel& channel() const noexcept { return *channel_; }

   private:
    std::shared_ptr<AresChannel> channel_;
  };
  static void on_socket_state(void* self, ares_socket_t fd, int readable, int writable);
  static void on_answer(void* lookup, int status, int timeouts, ares_addrinfo* result);
  static Task<void> drive(DriverMark mark);
  /// Hands c-ares the sockets that are ready, or lets it expire its timeouts.
  void process_ready();
  /// How long the driver may wait before c-ares has a timeout to handle.
  std::chrono::nanoseconds next_timeout();
  ResolveCache::TimePoint now() const;
  void remember(const std::string& key, const ResolveResult& result, int ttl_seconds);

  ResolverOptions options_;
  ares_channel channel_ = nullptr;
  UniqueFd epoll_;
  ResolveCache cache_;
  // Lookups on the wire by cache key: a second asker of the same name waits
  // for the first one's answer instead of sending its own queries.
  std::unordered_map<std::string, SharedFuture<ResolveResult>> in_flight_;
  std::size_t pending_ = 0;  // lookups c-ares has not answered yet
  bool driving_ = false;     // a driver task runs
};

}  // namespace tiffany::detail

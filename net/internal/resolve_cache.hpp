// ResolveCache: a resolver's answers by name until their TTL ends, failures briefly.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/net/resolver.hpp>

namespace tiffany::detail {

/// Names (lower-cased) to what resolving them gave, each until its expiry.
/// Bounded: storing beyond `max_entries` drops the expired entries, then all.
/// One thread.
class ResolveCache {
 public:
  using TimePoint = Scheduler::Clock::time_point;

  explicit ResolveCache(std::size_t max_entries) : max_entries_(max_entries) {}

  /// The unexpired answer for `host`, or nullptr.
  const ResolveResult* find(const std::string& host, TimePoint now) const;
  /// Remembers `result` for `host` until `expires`.
  void store(const std::string& host, ResolveResult result, TimePoint expires, TimePoint now);
  std::size_t size() const noexcept { return entries_.size(); }

  /// The key a name is cached under: lower case, without a final dot.
  static std::string key(std::string host);

 private:
  struct Entry {
    ResolveResult result;
    TimePoint expires;
  };
  std::unordered_map<std::string, Entry> entries_;
  std::size_t max_entries_;
};

}  // namespace tiffany::detail

// kv: the process-wide key-value store the kv plugin's handlers share.
#pragma once

#include <picojson.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kv {

using Clock = std::chrono::steady_clock;

/// Keys to JSON values, each with an optional expiry. One per process (the
/// plugin's AppContext holds it); every worker uses it, so each call locks.
class Store {
 public:
  explicit Store(std::size_t max_keys) : max_keys_(max_keys) {}

  /// Stores `value` under `key` until `expires` (never if nullopt). False
  /// when the store is full and `key` is new.
  bool put(const std::string& key, picojson::value value, std::optional<Clock::time_point> expires) {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(key);
    if (found == entries_.end() && entries_.size() >= max_keys_) return false;
    entries_[key] = Entry{std::move(value), expires};
    return true;
  }

  /// The value of `key` if present and not expired at `now`.
  std::optional<picojson::value> get(const std::string& key, Clock::time_point now) const {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(key);
    if (found == entries_.end() || expired(found->second, now)) return std::nullopt;
    return found->second.value;
  }

  /// Removes `key`; false if it was absent (or had expired).
  bool erase(const std::string& key, Clock::time_point now) {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(key);
    if (found == entries_.end()) return false;
    const bool live = !expired(found->second, now);
    entries_.erase(found);
    return live;
  }

  /// Drops every entry expired at `now`; returns how many.
  std::size_t sweep(Clock::time_point now) {
    std::lock_guard lock(mutex_);
    return std::erase_if(entries_, [now](const auto& entry) { return expired(entry.second, now); });
  }

  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    picojson::value value;
    std::optional<Clock::time_point> expires;
  };
  static bool expired(const Entry& entry, Clock::time_point now) { return entry.expires && *entry.expires <= now; }

  const std::size_t max_keys_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

/// One worker's counters (its WorkerContext holds them; no lock: one thread).
struct WorkerStats {
  std::size_t sweeps = 0;
  std::size_t expired = 0;
};

}  // namespace kv

// ServerStats: per-thread slots, their registry, and the sums.
#include <tiffany/handlers/server_stats.hpp>

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>
#include <vector>

namespace tiffany {
namespace {

const auto kProcessStarted = std::chrono::steady_clock::now();

/// One thread's stats. Written by that thread alone (a load and a store, no
/// read-modify-write), read by any: relaxed atomics keep that race-free.
struct alignas(64) Slots {
  std::array<std::atomic<std::int64_t>, kStatCount> values{};
  std::array<std::atomic<std::uint64_t>, kDurationBounds.size() + 1> durations{};
  std::atomic<std::uint64_t> duration_sum_ns{0};
  bool shared = false;  // written by several threads: must add atomically
};

template <typename T>
void add_to(std::atomic<T>& value, T delta, bool shared) noexcept {
  if (shared) {
    value.fetch_add(delta, std::memory_order_relaxed);
  } else {
    value.store(value.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }
}

/// Every thread's slots; a thread's go back to `free` (zeroed, its values
/// kept in `retired`) when it exits.
struct Registry {
  std::mutex mutex;
  std::deque<Slots> all;
  std::vector<Slots*> free;
  Slots retired;
  Slots after_exit{.shared = true};  // for counts made during thread exit
};

Registry& registry() noexcept {
  static Registry* const instance = new Registry;  // Why leaked: threads may count during static destruction
  return *instance;
}

void fold(const Slots& from, Slots& into) noexcept {
  for (std::size_t i = 0; i < kStatCount; ++i) add_to(into.values[i], from.values[i].load(std::memory_order_relaxed), true);
  for (std::size_t i = 0; i < from.durations.size(); ++i) {
    add_to(into.durations[i], from.durations[i].load(std::memory_order_relaxed), true);
  }
  add_to(into.duration_sum_ns, from.duration_sum_ns.load(std::memory_order_relaxed), true);
}

void zero(Slots& slots) noexcept {
  for (auto& value : slots.values) value.store(0, std::memory_order_relaxed);
  for (auto& value : slots.durations) value.store(0, std::memory_order_relaxed);
  slots.duration_sum_ns.store(0, std::memory_order_relaxed);
}

thread_local Slots* t_slots = nullptr;

/// Gives the thread's slots back when it exits.
struct ThreadSlots {
  ~ThreadSlots() {
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    fold(*t_slots, all.retired);
    zero(*t_slots);
    all.free.push_back(t_slots);
    t_slots = &all.after_exit;
  }
};

/// A thread's first count: takes slots from the registry.
[[gnu::noinline, gnu::cold]] Slots& claim_slots() noexcept {
  Registry& all = registry();
  {
    std::lock_guard lock(all.mutex);
    try {
      if (all.free.empty()) {
        t_slots = &all.all.emplace_back();
      } else {
        t_slots = all.free.back();
        all.free.pop_back();
      }
    } catch (...) {  // no memory: count in the shared slots
      t_slots = &all.after_exit;
      return *t_slots;
    }
  }
  thread_local ThreadSlots give_back_at_exit;
  return *t_slots;
}

// Why the first call apart: inlined, its lock and registry made every count
// save and restore five registers; a count is now a load, a test and an add.
inline Slots& slots_of_this_thread() noexcept {
  if (t_slots != nullptr) [[likely]] return *t_slots;
  return claim_slots();
}

// kDurationBounds in nanoseconds, so a request's bucket is found by integer
// compares from the fastest bucket up, where nearly every request stops.
constexpr std::array<std::int64_t, kDurationBounds.size()> make_bounds_ns() {
  std::array<std::int64_t, kDurationBounds.size()> bounds{};
  for (std::size_t i = 0; i < bounds.size(); ++i) bounds[i] = static_cast<std::int64_t>(kDurationBounds[i] * 1e9 + 0.5);
  return bounds;
}
constexpr auto kDurationBoundsNs = make_bounds_ns();

}  // namespace

const std::array<StatDescription, kStatCount>& stat_descriptions() noexcept {
  static constexpr std::string_view kTimeouts = "Connections closed (or requests answered 503) by a timeout, by stage.";
  static constexpr std::array<StatDescription, kStatCount> kDescriptions{{
      {"connections_open", "tiffany_connections_open", "", true, "Connections open now."},
      {"connections_idle", "tiffany_connections_idle", "", true,
       "Connections idle before their first bytes or between requests (parked: no task, no read buffer)."},
      {"connections_total", "tiffany_connections_total", "", false, "Connections accepted."},
      {"connections_refused", "tiffany_connections_refused_total", "", false,
       "Connections closed at once because their client address had a listener's max_connections_per_ip open."},
      {"requests_total", "tiffany_requests_parsed_total", "", false, "Requests parsed whole and passed to routing."},
      {"timeouts_header", "tiffany_timeouts_total", "stage=\"header\"", false, kTimeouts},
      {"timeouts_body", "tiffany_timeouts_total", "stage=\"body\"", false, kTimeouts},
      {"timeouts_write", "tiffany_timeouts_total", "stage=\"write\"", false, kTimeouts},
      {"timeouts_handler", "tiffany_timeouts_total", "stage=\"handler\"", false, kTimeouts},
      {"timeouts_idle", "tiffany_timeouts_total", "stage=\"idle\"", false, kTimeouts},
      {"timeouts_handshake", "tiffany_timeouts_total", "stage=\"handshake\"", false, kTimeouts},
      {"closed_by_drain", "tiffany_connections_drained_total", "", false,
       "Idle connections (plain or TLS) closed at the end of a drain's grace; not timeouts."},
      {"bytes_received", "tiffany_bytes_received_total", "", false, "Bytes read from HTTP peers."},
      {"bytes_sent", "tiffany_bytes_sent_total", "", false, "Bytes written to HTTP peers."},
      {"accept_backoffs", "tiffany_accept_backoffs_total", "", false,
       "Times accepting paused for lack of file descriptors or memory."},
      {"tls_handshakes_total", "tiffany_tls_handshakes_total", "", false, "Completed TLS handshakes."},
      {"tls_handshake_failures", "tiffany_tls_handshake_failures_total", "", false,
       "TLS handshakes that failed or timed out (the connection was closed)."},
  }};
  return kDescriptions;
}

void add_stat(Stat stat, std::int64_t delta) noexcept {
  Slots& slots = slots_of_this_thread();
  add_to(slots.values[static_cast<std::size_t>(stat)], delta, slots.shared);
}

void observe_request_duration(std::chrono::nanoseconds took) noexcept {
  Slots& slots = slots_of_this_thread();
  // The first bound not below `took`, as lower_bound over the seconds was.
  std::size_t bucket = 0;
  while (bucket < kDurationBoundsNs.size() && kDurationBoundsNs[bucket] < took.count()) ++bucket;
  add_to(slots.durations[bucket], std::uint64_t{1}, slots.shared);
  add_to(slots.duration_sum_ns, static_cast<std::uint64_t>(std::max<std::int64_t>(took.count(), 0)), slots.shared);
}

StatTotals stat_totals() {
  Slots sum;
  Registry& all = registry();
  {
    std::lock_guard lock(all.mutex);
    fold(all.retired, sum);
    fold(all.after_exit, sum);
    for (const Slots& slots : all.all) fold(slots, sum);
  }
  StatTotals totals;
  for (std::size_t i = 0; i < kStatCount; ++i) totals.values[i] = sum.values[i].load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < totals.duration_buckets.size(); ++i) {
    totals.duration_buckets[i] = sum.durations[i].load(std::memory_order_relaxed);
    totals.duration_count += totals.duration_buckets[i];
  }
  totals.duration_sum_seconds = static_cast<double>(sum.duration_sum_ns.load(std::memory_order_relaxed)) / 1e9;
  return totals;
}

std::chrono::steady_clock::time_point process_started() noexcept { return kProcessStarted; }

}  // namespace tiffany

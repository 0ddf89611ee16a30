// World: the simulated hosts, their network and clock, stepped in an order the seed decides.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tiffany/coro/entropy.hpp>
#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/wall_clock.hpp>
#include <tiffany/handlers/plugin_logger.hpp>

#include "sim/seeded_random.hpp"
#include "sim/sim_network.hpp"
#include "sim/sim_reactor.hpp"
#include "sim/sim_socket_calls.hpp"
#include "sim/trace_hash.hpp"

namespace tiffany::sim {

/// One simulated machine: a scheduler and its reactor (a worker of the
/// server, or a peer), on the world's thread and clock. A peer's scheduler
/// is the host's own; a worker's is its WorkerRuntime's (attached).
struct Host {
  std::string name;
  std::unique_ptr<SimReactor> reactor;  // before the scheduler: it outlives the tasks' operations
  std::unique_ptr<Scheduler> own_scheduler;
  Scheduler* scheduler = nullptr;  // null once detached: the host takes no more steps
  std::uint64_t trace_read = 0;    // events of the scheduler's trace already mixed into the hash
};

/// How a run ended.
enum class RunEnd {
  done,       ///< the run's own condition holds (run_until)
  quiet,      ///< nothing ready, nothing in flight, no timer, no segment on its way
  waiting,    ///< every host waits on I/O that nothing will ever complete (a hang)
  time_up,    ///< virtual time reached the limit
  step_limit  ///< too many steps without getting quiet (a livelock)
};

/// Everything a simulation run has: the seed's generator, virtual time, the
/// network, the hosts, the trace hash. All of it lives on one thread, with
/// Scheduler::SharedThread in force so the hosts' schedulers and reactors
/// coexist; run() makes each host current in turn.
///
/// Determinism: the run depends on the seed alone. Which runnable host steps
/// next is drawn from it; virtual time moves only when no host can (to the
/// earliest timer of any host or the next segment's arrival); the wall clock
/// the server writes (wall_now) follows virtual time from a fixed epoch;
/// the socket calls made outside the reactor (SocketCalls: close,
/// shutdown, a non-blocking try) reach the simulated network;
/// the server's own random draws (fill_entropy: request ids) come from a
/// second generator of the seed, so they do not shift the network's draws.
class World {
 public:
  explicit World(std::uint64_t seed, NetworkProfile profile = {});
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  /// A new host with a scheduler of its own (a peer).
  Host& add_host(std::string name);
  /// A new host with a reactor and no scheduler yet: a worker, whose
  /// WorkerRuntime builds its scheduler over `reactor` (on the world's
  /// clock, with a trace) and is attached with attach().
  Host& add_bare_host(std::string name);
  /// Steps `scheduler` as `host`'s from now on; detach before it goes.
  void attach(Host& host, Scheduler& scheduler);
  void detach(Host& host) noexcept { host.scheduler = nullptr; }
  /// Spawns `task` on `host` (as its current scheduler).
  template <class T>
  JoinHandle<T> spawn(Host& host, Task<T> task) {
    Scheduler::CurrentScope scheduler(*host.scheduler);
    Reactor::CurrentScope reactor(*host.reactor);
    return host.scheduler->spawn(std::move(task));
  }

  /// Steps hosts until the world is quiet, virtual time passes `limit`
  /// (measured from now), or `max_steps` steps ran. A host whose scheduler
  /// was asked to stop (Scheduler::stopping: a drained worker) takes no more steps.
  RunEnd run(std::chrono::nanoseconds limit = std::chrono::hours(24), std::uint64_t max_steps = 50'000'000);
  /// As run(), and ends with RunEnd::done as soon as `done()` holds (checked between steps).
  RunEnd run_until(const std::function<bool()>& done, std::chrono::nanoseconds limit = std::chrono::hours(24),
                   std::uint64_t max_steps = 50'000'000);
  /// Runs `action` with `host`'s scheduler and reactor current (outside any task).
  template <class Action>
  void on(Host& host, Action&& action) {
    Scheduler::CurrentScope scheduler(*host.scheduler);
    Reactor::CurrentScope reactor(*host.reactor);
    action();
  }

  SimNetwork& network() noexcept { return network_; }
  SeededRandom& random() noexcept { return random_; }
  ManualClock& clock() noexcept { return clock_; }
  TraceHash& trace() noexcept { return trace_; }
  std::uint64_t seed() const noexcept { return seed_; }
  std::uint64_t steps() const noexcept { return steps_; }
  /// Operations any host started on descriptors the network does not own.
  std::size_t foreign_operations() const noexcept;
  /// What the server logged through the log sink (plugins, pub/sub's
  /// Redis link), each line after its virtual time in ms and level; the last
  /// kLogLines are kept, for a failure's report.
  const std::vector<std::string>& log() const noexcept { return log_capture_.lines; }
  static constexpr std::size_t kLogLines = 40;
  /// Virtual time since the world began.
  std::chrono::nanoseconds elapsed() const noexcept { return clock_.now() - start_; }
  /// The wall-clock time the world began at (fixed, so Date headers repeat): 2026-01-01T00:00:00Z.
  static constexpr std::int64_t kWallEpochSeconds = 1'767'225'600;

 private:
  bool runnable(const Host& host) const;
  bool takes_steps(const Host& host) const noexcept { return host.scheduler != nullptr && !host.scheduler->stopping(); }
  void step(Host& host);
  void mix_task_events(Host& host);
  static std::timespec wall_time(const void* world) noexcept;
  static void draw_entropy(void* world, void* into, std::size_t size) noexcept;

  // The log sink while the world lives: lines go to the run, not to stderr.
  struct LogCapture final : LogSink {
    explicit LogCapture(World& owner) : world(owner) {}
    bool enabled(LogLevel level) const noexcept override { return level >= LogLevel::info; }
    void write(LogLevel level, std::string_view line) noexcept override;
    World& world;
    std::vector<std::string> lines;
  };

  std::uint64_t seed_;
  Scheduler::SharedThread shared_thread_;  // first: the hosts are built while it is in force
  SeededRandom random_;
  ManualClock clock_;
  ManualClock::time_point start_;
  TraceHash trace_;
  SimNetwork network_;
  SimSocketCalls socket_calls_;
  SocketCalls::Scope socket_calls_scope_;
  WallClockSource wall_clock_;
  SeededRandom entropy_random_;
  EntropySource entropy_;
  LogCapture log_capture_{*this};
  std::vector<std::unique_ptr<Host>> hosts_;
  std::uint64_t steps_ = 0;
};

}  // namespace tiffany::sim

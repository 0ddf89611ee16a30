// Scenario: a named situation the simulation runs from one seed, and what it checks at the end.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "handlers/engine/metrics.hpp"
#include "sim/world.hpp"

namespace tiffany::sim {

/// What a scenario found: every property that did not hold, and a line on what happened.
struct ScenarioOutcome {
  std::vector<std::string> failures;
  std::string summary;

  /// Records a failure unless `holds`.
  void check(bool holds, const std::string& property) {
    if (!holds) failures.push_back(property);
  }
};

struct Scenario {
  const char* name;
  const char* about;  // one line for --list
  void (*run)(World& world, ScenarioOutcome& outcome);
  std::uint64_t budget;  // the seeds CI runs: 1 to budget (`tiffany-sim --budget`)
};

class SimServer;

/// The judges' "closed WebSocket never freed", as a property: built before
/// the server, it notes `listener`'s WebSocket counters (process-wide rows,
/// so a run reads its own difference); check() after the drain records a
/// failure for every session the run opened that is still in memory, or
/// whose connection was never counted as ended.
class WebSocketSessionsFreed {
 public:
  explicit WebSocketSessionsFreed(std::string listener);
  void check(ScenarioOutcome& outcome) const;

 private:
  std::string listener_;
  Metrics::WebSocketTotals before_;
};

/// Drains `server` (what SIGTERM asks) with `grace` once the clients are
/// done, and checks what such a drain must end with: it ends, within the
/// grace plus the header timeout (2 s in the scenarios' configs) plus a
/// second (docs/operations.md), and no connection is left.
void drain_and_check(World& world, SimServer& server, std::chrono::milliseconds grace, ScenarioOutcome& outcome);

/// Every scenario, in --list order.
const std::vector<Scenario>& scenarios();
const Scenario* find_scenario(const std::string& name);

/// One seed of one scenario: how it went, and the numbers that identify the run.
struct SeedRun {
  ScenarioOutcome outcome;
  std::uint64_t trace_hash = 0;
  std::uint64_t events = 0;
  std::chrono::nanoseconds virtual_time{0};
  std::vector<std::string> log;  // the server's last log lines (World::log)
  bool ok() const noexcept { return outcome.failures.empty(); }
};

/// Runs `scenario` from `seed` in a fresh world whose network (latency,
/// segmenting, short writes, windows) is drawn from the seed too (each seed
/// turns its own faults on: swarm testing); then checks what every scenario
/// must leave behind: no simulated socket open, no I/O that missed the
/// simulation. `trace`: one line per event, or null.
SeedRun run_seed(const Scenario& scenario, std::uint64_t seed, std::ostream* trace);

/// The network a seed runs on.
NetworkProfile network_for(std::uint64_t seed);

/// One run's line ("scenario NAME seed N: ok, trace hash H, ..."); for a
/// failure, a line per failed property and the command that replays the seed.
void print_run(std::ostream& out, const Scenario& scenario, std::uint64_t seed, const SeedRun& run);

}  // namespace tiffany::sim

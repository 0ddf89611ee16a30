// Scenario runs: the seed's network, the scenario, the properties every run must end with.
#include "sim/scenario.hpp"

#include <cstdio>
#include <exception>
#include <utility>

#include <tiffany/coro/exception_message.hpp>

#include "sim/sim_server.hpp"

namespace tiffany::sim {

void add_http1_scenarios(std::vector<Scenario>& into);       // sim/scenarios/http1_scenarios.cpp
void add_http2_scenarios(std::vector<Scenario>& into);       // sim/scenarios/http2_scenarios.cpp
void add_websocket_scenarios(std::vector<Scenario>& into);   // sim/scenarios/websocket_scenarios.cpp
void add_mixed_drain_scenario(std::vector<Scenario>& into);  // sim/scenarios/mixed_drain_scenario.cpp

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> all = [] {
    std::vector<Scenario> list;
    add_http1_scenarios(list);
    add_http2_scenarios(list);
    add_websocket_scenarios(list);
    add_mixed_drain_scenario(list);
    return list;
  }();
  return all;
}

void drain_and_check(World& world, SimServer& server, std::chrono::milliseconds grace, ScenarioOutcome& outcome) {
  using namespace std::chrono_literals;
  const auto began = world.elapsed();
  server.drain(grace);
  const RunEnd drained = world.run_until([&] { return server.drained(); }, 1h);
  outcome.check(drained == RunEnd::done, "the drain did not end");
  outcome.check(world.elapsed() - began <= grace + 2s + 1s, "the drain outlasted its grace and the header timeout");
  outcome.check(server.open_connections() == 0,
                std::to_string(server.open_connections()) + " connections still open after the drain");
}

WebSocketSessionsFreed::WebSocketSessionsFreed(std::string listener)
    : listener_(std::move(listener)), before_(Metrics::instance().websocket_totals(listener_)) {}

void WebSocketSessionsFreed::check(ScenarioOutcome& outcome) const {
  const Metrics::WebSocketTotals after = Metrics::instance().websocket_totals(listener_);
  const std::uint64_t sessions = after.connections - before_.connections;
  const std::uint64_t freed = after.freed - before_.freed;
  outcome.check(freed == sessions, std::to_string(sessions - freed) + " of " + std::to_string(sessions) +
                                       " WebSocket sessions still in memory after the drain");
  outcome.check(after.ended - before_.ended == sessions, "a WebSocket connection not counted as ended");
}

const Scenario* find_scenario(const std::string& name) {
  for (const Scenario& scenario : scenarios()) {
    if (name == scenario.name) return &scenario;
  }
  return nullptr;
}

NetworkProfile network_for(std::uint64_t seed) {
  // Why a generator of its own: the profile must not shift the run's draws.
  SeededRandom random(seed ^ 0xa0761d6478bd642fULL);
  using std::chrono::microseconds;
  NetworkProfile profile;
  profile.min_latency = microseconds(random.between(5, 200));
  profile.max_latency = profile.min_latency +
                        microseconds(random.chance(300'000) ? random.between(1'000, 50'000) : random.between(0, 2'000));
  profile.max_segment = random.chance(300'000) ? random.between(1, 16) : random.between(64, 64 * 1024);
  profile.short_write_per_million = random.chance(500'000) ? static_cast<std::uint32_t>(random.between(0, 900'000)) : 0;
  profile.window = random.chance(300'000) ? random.between(1, 4096) : random.between(16 * 1024, 1024 * 1024);
  return profile;
}

SeedRun run_seed(const Scenario& scenario, std::uint64_t seed, std::ostream* trace) {
  SeedRun run;
  World world(seed, network_for(seed));
  world.trace().set_lines(trace);
  try {
    scenario.run(world, run.outcome);
  } catch (...) {
    run.outcome.failures.push_back("the scenario threw: " + exception_message(std::current_exception()));
  }
  run.outcome.check(world.network().open_sockets() == 0,
                    std::to_string(world.network().open_sockets()) + " simulated sockets left open");
  run.outcome.check(world.foreign_operations() == 0, std::to_string(world.foreign_operations()) +
                                                         " operations on descriptors the simulation does not own");
  run.trace_hash = world.trace().value();
  run.events = world.trace().events();
  run.virtual_time = world.elapsed();
  run.log = world.log();
  return run;
}

void print_run(std::ostream& out, const Scenario& scenario, std::uint64_t seed, const SeedRun& run) {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(run.trace_hash));
  const double virtual_seconds = std::chrono::duration<double>(run.virtual_time).count();
  out << "scenario " << scenario.name << " seed " << seed << ": " << (run.ok() ? "ok" : "FAILED") << ", trace hash "
      << hash << ", " << run.events << " events, " << virtual_seconds << " s virtual"
      << (run.outcome.summary.empty() ? "" : ", " + run.outcome.summary) << "\n";
  if (run.ok()) return;
  for (const std::string& failure : run.outcome.failures) out << "  failed: " << failure << "\n";
  for (const std::string& line : run.log) out << "  log: " << line << "\n";
  out << "  replay: tiffany-sim --scenario " << scenario.name << " --seed " << seed << " --trace\n";
}

}  // namespace tiffany::sim

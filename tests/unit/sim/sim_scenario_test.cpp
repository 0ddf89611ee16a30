// The scenarios: each passes a few seeds, repeats its trace hash, and a failure's report names the replay.
#include "sim/scenario.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace tiffany::sim {
namespace {

TEST(SimScenarioTest, EveryScenarioPassesItsFirstSeedsAndRepeatsItsHash) {
  ASSERT_GE(scenarios().size(), 2u);
  for (const Scenario& scenario : scenarios()) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const SeedRun first = run_seed(scenario, seed, nullptr);
      std::ostringstream report;
      print_run(report, scenario, seed, first);
      EXPECT_TRUE(first.ok()) << report.str();
      EXPECT_EQ(run_seed(scenario, seed, nullptr).trace_hash, first.trace_hash) << report.str();
    }
  }
}

TEST(SimScenarioTest, AFailedRunNamesWhatFailedAndTheCommandThatReplaysIt) {
  const Scenario& scenario = scenarios().front();
  SeedRun run;
  run.trace_hash = 0xabc;
  run.outcome.failures.push_back("2 connections still open after the drain");
  run.log.push_back("1500 ms [warn] pubsub: lost Redis at 127.0.0.1:6379");
  std::ostringstream report;
  print_run(report, scenario, 81234, run);
  const std::string name = scenario.name;
  EXPECT_TRUE(report.str().starts_with("scenario " + name + " seed 81234: FAILED, trace hash 0000000000000abc, "))
      << report.str();
  EXPECT_NE(report.str().find("  failed: 2 connections still open after the drain\n"), std::string::npos);
  EXPECT_NE(report.str().find("  log: 1500 ms [warn] pubsub: lost Redis at 127.0.0.1:6379\n"), std::string::npos);
  EXPECT_NE(report.str().find("  replay: tiffany-sim --scenario " + name + " --seed 81234 --trace\n"),
            std::string::npos);
}

TEST(SimScenarioTest, SeedsDrawDifferentNetworks) {
  int differing = 0;
  for (std::uint64_t seed = 2; seed <= 11; ++seed) {
    const NetworkProfile a = network_for(1);
    const NetworkProfile b = network_for(seed);
    differing += a.max_segment != b.max_segment || a.window != b.window || a.min_latency != b.min_latency ? 1 : 0;
  }
  EXPECT_EQ(differing, 10);
  EXPECT_EQ(network_for(5).window, network_for(5).window);
}

}  // namespace
}  // namespace tiffany::sim

// tiffany-sim: runs the simulation's scenarios by seed, and prints how to replay a failure.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "sim/scenario.hpp"

namespace {

using tiffany::sim::Scenario;
using tiffany::sim::SeedRun;

constexpr const char* kUsage =
    "usage: tiffany-sim --list\n"
    "       tiffany-sim --scenario NAME --seed N [--trace]\n"
    "       tiffany-sim [--scenario NAME] --seeds A-B\n"
    "       tiffany-sim [--scenario NAME] --budget [PERCENT]\n"
    "  --list        the scenarios, one a line, name first\n"
    "  --scenario    one scenario (with --seeds: every scenario when left out)\n"
    "  --seed N      one run; prints its trace hash\n"
    "  --seeds A-B   every seed from A to B; exits 1 if any fails, printing how to replay it\n"
    "  --budget      each scenario's own seeds, 1 to its budget (what CI runs); PERCENT: that\n"
    "                share of each budget (a sanitized build's); exits as --seeds\n"
    "  --trace       with --seed: every event of the run, one a line, on stdout\n";

std::optional<std::uint64_t> number(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

int usage_error(const std::string& what) {
  std::cerr << "tiffany-sim: " << what << "\n" << kUsage;
  return 2;
}

// Prints one run's line (and how to replay it when it failed); true when it passed.
bool report(const Scenario& scenario, std::uint64_t seed, const SeedRun& run) {
  tiffany::sim::print_run(std::cout, scenario, seed, run);
  return run.ok();
}

}  // namespace

int main(int argc, char** argv) {
  std::string scenario_name;
  std::optional<std::uint64_t> seed;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> seeds;
  std::optional<std::uint64_t> budget_percent;
  bool list = false;
  bool trace = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--list") {
      list = true;
    } else if (arg == "--trace") {
      trace = true;
    } else if (arg == "--scenario" && has_value) {
      scenario_name = argv[++i];
    } else if (arg == "--seed" && has_value) {
      seed = number(argv[++i]);
      if (!seed) return usage_error("--seed wants a number, not \"" + std::string(argv[i]) + "\"");
    } else if (arg == "--seeds" && has_value) {
      const std::string_view range = argv[++i];
      const std::size_t dash = range.find('-');
      const auto first = number(range.substr(0, dash));
      const auto last = dash == std::string_view::npos ? first : number(range.substr(dash + 1));
      if (!first || !last || *last < *first)
        return usage_error("--seeds wants A-B with A <= B, not \"" + std::string(range) + "\"");
      seeds = std::pair{*first, *last};
    } else if (arg == "--budget") {
      budget_percent = 100;
      if (has_value && argv[i + 1][0] != '-') {
        budget_percent = number(argv[++i]);
        if (!budget_percent || *budget_percent == 0 || *budget_percent > 100)
          return usage_error("--budget wants a percent from 1 to 100, not \"" + std::string(argv[i]) + "\"");
      }
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else {
      return usage_error("unknown argument \"" + std::string(arg) + "\"");
    }
  }
  if (list) {
    for (const Scenario& scenario : tiffany::sim::scenarios())
      std::cout << scenario.name << "  " << scenario.about << " (CI: " << scenario.budget << " seeds)\n";
    return 0;
  }
  const Scenario* chosen = nullptr;
  if (!scenario_name.empty()) {
    chosen = tiffany::sim::find_scenario(scenario_name);
    if (chosen == nullptr) return usage_error("no scenario \"" + scenario_name + "\" (--list names them)");
  }
  if ((seed ? 1 : 0) + (seeds ? 1 : 0) + (budget_percent ? 1 : 0) > 1)
    return usage_error("--seed, --seeds and --budget do not go together");
  if (seed) {
    if (chosen == nullptr) return usage_error("--seed needs --scenario");
    const SeedRun run = tiffany::sim::run_seed(*chosen, *seed, trace ? &std::cout : nullptr);
    return report(*chosen, *seed, run) ? 0 : 1;
  }
  if (!seeds && !budget_percent) return usage_error("say --list, --seed, --seeds or --budget");
  if (trace) return usage_error("--trace goes with one --seed");
  int failed = 0;
  for (const Scenario& scenario : tiffany::sim::scenarios()) {
    if (chosen != nullptr && chosen != &scenario) continue;
    const auto [first, last] = seeds ? *seeds
                                     : std::pair<std::uint64_t, std::uint64_t>{
                                           1, std::max<std::uint64_t>(1, scenario.budget * *budget_percent / 100)};
    for (std::uint64_t s = first;; ++s) {
      if (!report(scenario, s, tiffany::sim::run_seed(scenario, s, nullptr))) ++failed;
      if (s == last) break;
    }
  }
  if (failed > 0) std::cout << failed << " failing seed" << (failed == 1 ? "" : "s") << "\n";
  return failed > 0 ? 1 : 0;
}

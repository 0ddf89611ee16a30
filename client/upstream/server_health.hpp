// ServerHealth: one upstream server's passive (nginx max_fails) and active (probe rise/fall) health.
#pragma once

#include <chrono>
#include <string_view>

namespace tiffany::upstream {

using TimePoint = std::chrono::steady_clock::time_point;

/// What a request to a server came to, as the proxy judges it.
enum class Outcome { success, failure };

/// One state for metrics and pick(): why a server is (not) taking requests.
enum class ServerState {
  up,            // takes requests
  probing,       // passive health's down time is over: one request may try it
  down_passive,  // max_fails failures within fail_timeout: out until fail_timeout passes
  down_active,   // the active probe failed `fall` times in a row (wins over passive)
};
std::string_view to_string(ServerState state) noexcept;

/// What a result did to a server's health, for the log and the metrics:
/// passive health took it out (max_fails reached) or a request through it
/// succeeded while it was out; active health's `fall` failed or `rise`
/// passed probes in a row.
enum class HealthChange { none, marked_down, came_back };

class ServerHealth {
 public:
  ServerHealth(int max_fails, std::chrono::milliseconds fail_timeout, int rise, int fall) noexcept
      : max_fails_(max_fails), fail_timeout_(fail_timeout), rise_(rise), fall_(fall) {}

  ServerState state(TimePoint now) const noexcept;
  /// True when pick() may choose it now (up, or probing with no probe in flight).
  bool available(TimePoint now) const noexcept;

  /// A request starts on this server (marks the passive probe as taken).
  void begin(TimePoint now) noexcept;
  /// The request ended; failures count toward max_fails.
  HealthChange end(Outcome outcome, TimePoint now) noexcept;
  /// An active probe's result.
  HealthChange probe_result(bool passed) noexcept;
  int max_fails() const noexcept { return max_fails_; }

 private:
  bool passive_down() const noexcept { return max_fails_ > 0 && fails_ >= max_fails_; }

  int max_fails_;
  std::chrono::milliseconds fail_timeout_;
  int rise_;
  int fall_;
  // Passive (nginx): failures counted in a window starting at the first one.
  int fails_ = 0;
  TimePoint window_start_{};
  TimePoint down_until_{};
  bool probe_in_flight_ = false;
  // Active: servers start up; counts of results in a row.
  bool active_up_ = true;
  int passes_in_row_ = 0;
  int failures_in_row_ = 0;
};

}  // namespace tiffany::upstream

// ServerHealth: one upstream server's passive (nginx max_fails) and active (probe rise/fall) health.
#include "client/upstream/server_health.hpp"

namespace tiffany::upstream {

std::string_view to_string(ServerState state) noexcept {
  switch (state) {
    case ServerState::up: return "up";
    case ServerState::probing: return "probing";
    case ServerState::down_passive: return "down_passive";
    case ServerState::down_active: return "down_active";
  }
  return "?";
}

ServerState ServerHealth::state(TimePoint now) const noexcept {
  if (!active_up_) return ServerState::down_active;
  if (!passive_down()) return ServerState::up;
  return now >= down_until_ ? ServerState::probing : ServerState::down_passive;
}

bool ServerHealth::available(TimePoint now) const noexcept {
  const ServerState current = state(now);
  return current == ServerState::up || (current == ServerState::probing && !probe_in_flight_);
}

void ServerHealth::begin(TimePoint now) noexcept {
  if (state(now) == ServerState::probing) probe_in_flight_ = true;
}

HealthChange ServerHealth::end(Outcome outcome, TimePoint now) noexcept {
  if (max_fails_ == 0) return HealthChange::none;
  if (outcome == Outcome::success) {
    // Why any success restores: the server answered, as nginx's probe request does.
    const bool was_down = passive_down();
    fails_ = 0;
    probe_in_flight_ = false;
    return was_down ? HealthChange::came_back : HealthChange::none;
  }
  if (passive_down()) {
    // Why: a failure while down (the probe, or a request begun before) keeps
    // it out for another fail_timeout, as nginx does.
    probe_in_flight_ = false;
    down_until_ = now + fail_timeout_;
    return HealthChange::none;
  }
  if (fails_ == 0 || now - window_start_ >= fail_timeout_) {
    fails_ = 0;
    window_start_ = now;
  }
  if (++fails_ < max_fails_) return HealthChange::none;
  down_until_ = now + fail_timeout_;
  return HealthChange::marked_down;
}

HealthChange ServerHealth::probe_result(bool passed) noexcept {
  if (passed) {
    failures_in_row_ = 0;
    if (!active_up_ && ++passes_in_row_ >= rise_) {
      active_up_ = true;
      return HealthChange::came_back;
    }
  } else {
    passes_in_row_ = 0;
    if (active_up_ && ++failures_in_row_ >= fall_) {
      active_up_ = false;
      failures_in_row_ = 0;
      return HealthChange::marked_down;
    }
  }
  return HealthChange::none;
}

}  // namespace tiffany::upstream

// ServerHealth: nginx's max_fails/fail_timeout, the single probe request, and active rise/fall.
#include "client/upstream/server_health.hpp"

#include <gtest/gtest.h>

namespace tiffany::upstream {
namespace {

using std::chrono::milliseconds;
const TimePoint t0{};

TEST(ServerHealth, MaxFailsWithinFailTimeoutTakesTheServerOutForFailTimeout) {
  ServerHealth health(3, milliseconds(10'000), 2, 3);
  health.end(Outcome::failure, t0);
  health.end(Outcome::failure, t0 + milliseconds(1000));
  EXPECT_EQ(health.state(t0 + milliseconds(1000)), ServerState::up);
  health.end(Outcome::failure, t0 + milliseconds(2000));
  EXPECT_EQ(health.state(t0 + milliseconds(2000)), ServerState::down_passive);
  EXPECT_FALSE(health.available(t0 + milliseconds(11'999)));
  EXPECT_TRUE(health.available(t0 + milliseconds(12'000)));
}

TEST(ServerHealth, FailuresOutsideTheWindowDoNotAddUp) {
  ServerHealth health(2, milliseconds(1000), 1, 1);
  health.end(Outcome::failure, t0);
  health.end(Outcome::failure, t0 + milliseconds(1000));  // a new window
  EXPECT_EQ(health.state(t0 + milliseconds(1000)), ServerState::up);
  health.end(Outcome::failure, t0 + milliseconds(1500));
  EXPECT_EQ(health.state(t0 + milliseconds(1500)), ServerState::down_passive);
}

TEST(ServerHealth, AfterFailTimeoutOneProbeRequestDecides) {
  ServerHealth health(1, milliseconds(1000), 1, 1);
  health.end(Outcome::failure, t0);
  const TimePoint t1 = t0 + milliseconds(1000);
  EXPECT_EQ(health.state(t1), ServerState::probing);
  health.begin(t1);
  EXPECT_FALSE(health.available(t1)) << "one probe at a time";
  health.end(Outcome::failure, t1 + milliseconds(10));
  EXPECT_EQ(health.state(t1 + milliseconds(10)), ServerState::down_passive);
  EXPECT_FALSE(health.available(t1 + milliseconds(1009)));
  const TimePoint t2 = t1 + milliseconds(1010);
  health.begin(t2);
  health.end(Outcome::success, t2);
  EXPECT_EQ(health.state(t2), ServerState::up);
  EXPECT_TRUE(health.available(t2));
}

TEST(ServerHealth, SuccessResetsTheCountAndMaxFailsZeroDisables) {
  ServerHealth counted(2, milliseconds(1000), 1, 1);
  counted.end(Outcome::failure, t0);
  counted.end(Outcome::success, t0);
  counted.end(Outcome::failure, t0);
  EXPECT_EQ(counted.state(t0), ServerState::up);
  ServerHealth off(0, milliseconds(1000), 1, 1);
  for (int i = 0; i < 100; ++i) off.end(Outcome::failure, t0);
  EXPECT_EQ(off.state(t0), ServerState::up);
}

TEST(ServerHealth, ResultsSayWhenTheServerIsMarkedDownAndWhenItComesBack) {
  ServerHealth passive(2, milliseconds(1000), 1, 1);
  EXPECT_EQ(passive.end(Outcome::failure, t0), HealthChange::none);
  EXPECT_EQ(passive.end(Outcome::failure, t0), HealthChange::marked_down);
  EXPECT_EQ(passive.end(Outcome::failure, t0), HealthChange::none) << "already down: no second change";
  EXPECT_EQ(passive.end(Outcome::success, t0 + milliseconds(1000)), HealthChange::came_back);
  EXPECT_EQ(passive.end(Outcome::success, t0 + milliseconds(1000)), HealthChange::none);
  ServerHealth active(1, milliseconds(1000), 2, 2);
  EXPECT_EQ(active.probe_result(false), HealthChange::none);
  EXPECT_EQ(active.probe_result(false), HealthChange::marked_down);
  EXPECT_EQ(active.probe_result(false), HealthChange::none);
  EXPECT_EQ(active.probe_result(true), HealthChange::none);
  EXPECT_EQ(active.probe_result(true), HealthChange::came_back);
}

TEST(ServerHealth, ActiveProbesUseRiseAndFallAndWinOverPassive) {
  ServerHealth health(1, milliseconds(1000), 2, 3);
  health.probe_result(false);
  health.probe_result(false);
  EXPECT_EQ(health.state(t0), ServerState::up);
  health.probe_result(true);  // breaks the run
  health.probe_result(false);
  health.probe_result(false);
  EXPECT_EQ(health.state(t0), ServerState::up);
  health.probe_result(false);
  EXPECT_EQ(health.state(t0), ServerState::down_active);
  EXPECT_FALSE(health.available(t0)) << "passive says up, active says down: not picked";
  health.probe_result(true);
  EXPECT_EQ(health.state(t0), ServerState::down_active);
  health.probe_result(true);
  EXPECT_EQ(health.state(t0), ServerState::up);
  EXPECT_EQ(to_string(ServerState::down_active), "down_active");
}

}  // namespace
}  // namespace tiffany::upstream

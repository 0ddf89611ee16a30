// happy_eyeballs on virtual time with scripted attempts: the family
// interleaving, the attempt delay, failover on failure, the first connection
// winning, losers and a canceled caller canceling every attempt.
#include "net/internal/happy_eyeballs.hpp"

#include <sys/eventfd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/coro/task_canceled.hpp>

namespace tiffany::detail {
namespace {

using namespace std::chrono_literals;

SocketAddress address(const std::string& host) { return *SocketAddress::from_numeric(host, 443); }

// Each address's attempt takes `after`, then connects (error 0) or fails with `error`.
struct Step {
  std::chrono::milliseconds after;
  int error = 0;
};

struct Script {
  std::map<std::string, Step> steps;
  std::vector<std::string> log;  // "start A @0", "connected A @100", "failed A @50", "canceled A @300"
  Scheduler::Clock::time_point start;

  std::string at() const {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Scheduler::current().now() - start);
    return " @" + std::to_string(ms.count());
  }
};

Task<AttemptOutcome> scripted_attempt(Script& script, SocketAddress to) {
  const std::string name = to.host();
  const Step step = script.steps.at(name);
  script.log.push_back("start " + name + script.at());
  try {
    co_await Sleep{step.after};
  } catch (const TaskCanceled&) {
    script.log.push_back("canceled " + name + script.at());
    throw;
  }
  if (step.error != 0) {
    script.log.push_back("failed " + name + script.at());
    co_return AttemptOutcome(step.error);
  }
  script.log.push_back("connected " + name + script.at());
  co_return AttemptOutcome(UniqueFd(::eventfd(0, EFD_CLOEXEC)));  // any descriptor stands for the socket
}

class HappyEyeballsTest : public ::testing::Test {
 protected:
  HappyEyeballsTest() : scheduler_(options()) { script_.start = scheduler_.now(); }

  SchedulerOptions options() {
    SchedulerOptions settings;
    settings.clock = &clock_;
    return settings;
  }

  // Runs the race over `hosts` (in this order) with a 250 ms delay.
  EyeballsOutcome race(const std::vector<std::string>& hosts) {
    std::vector<SocketAddress> addresses;
    for (const std::string& host : hosts) addresses.push_back(address(host));
    std::optional<EyeballsOutcome> result;
    ConnectAttempt attempt = [this](SocketAddress to) { return scripted_attempt(script_, to); };
    auto run = [](std::vector<SocketAddress> all, ConnectAttempt connect,
                  std::optional<EyeballsOutcome>& out) -> Task<void> {
      out.emplace(co_await happy_eyeballs(std::move(all), 250ms, std::move(connect)));
    };
    (void)scheduler_.spawn(run(std::move(addresses), std::move(attempt), result));
    scheduler_.run();
    EXPECT_TRUE(result.has_value());
    EXPECT_EQ(scheduler_.task_count(), 0u) << "an attempt outlived the race";
    return result ? std::move(*result) : EyeballsOutcome{};
  }

  ManualClock clock_;
  Scheduler scheduler_;
  Script script_;
};

TEST(InterleaveFamilies, AlternatesFamiliesStartingWithTheFirstAddresss) {
  const auto order = [](const std::vector<std::string>& hosts) {
    std::vector<SocketAddress> addresses;
    for (const std::string& host : hosts) addresses.push_back(address(host));
    std::vector<std::string> out;
    for (const SocketAddress& a : interleave_families(addresses)) out.push_back(a.host());
    return out;
  };
  EXPECT_EQ(order({"2001:db8::1", "2001:db8::2", "192.0.2.1", "192.0.2.2"}),
            (std::vector<std::string>{"2001:db8::1", "192.0.2.1", "2001:db8::2", "192.0.2.2"}));
  EXPECT_EQ(order({"192.0.2.1", "2001:db8::1", "2001:db8::2"}),
            (std::vector<std::string>{"192.0.2.1", "2001:db8::1", "2001:db8::2"}));
  EXPECT_EQ(order({"192.0.2.1", "192.0.2.2"}), (std::vector<std::string>{"192.0.2.1", "192.0.2.2"}));
  EXPECT_TRUE(order({}).empty());
}

TEST_F(HappyEyeballsTest, TheNextAttemptStartsAfterTheDelayAndTheFirstToConnectWins) {
  script_.steps = {{"2001:db8::1", {1000ms}}, {"192.0.2.1", {100ms}}, {"2001:db8::2", {10ms}}};
  const EyeballsOutcome outcome = race({"2001:db8::1", "192.0.2.1", "2001:db8::2"});
  ASSERT_TRUE(outcome.socket.valid());
  EXPECT_EQ(outcome.address.host(), "192.0.2.1");
  EXPECT_EQ(script_.log, (std::vector<std::string>{"start 2001:db8::1 @0", "start 192.0.2.1 @250",
                                                   "connected 192.0.2.1 @350", "canceled 2001:db8::1 @350"}));
  EXPECT_TRUE(outcome.failures.empty());
}

TEST_F(HappyEyeballsTest, AFailedAttemptStartsTheNextAtOnce) {
  script_.steps = {{"2001:db8::1", {40ms, ECONNREFUSED}}, {"192.0.2.1", {30ms, ENETUNREACH}},
                   {"2001:db8::2", {5ms}}};
  const EyeballsOutcome outcome = race({"2001:db8::1", "192.0.2.1", "2001:db8::2"});
  ASSERT_TRUE(outcome.socket.valid());
  EXPECT_EQ(outcome.address.host(), "2001:db8::2");
  EXPECT_EQ(script_.log, (std::vector<std::string>{"start 2001:db8::1 @0", "failed 2001:db8::1 @40",
                                                   "start 192.0.2.1 @40", "failed 192.0.2.1 @70",
                                                   "start 2001:db8::2 @70", "connected 2001:db8::2 @75"}));
  ASSERT_EQ(outcome.failures.size(), 2u);
  EXPECT_EQ(outcome.failures[0].second, ECONNREFUSED);
  EXPECT_EQ(outcome.failures[1].second, ENETUNREACH);
}

TEST_F(HappyEyeballsTest, AnEarlierAttemptThatConnectsFirstWinsAndTheLaterOnesAreCanceled) {
  script_.steps = {{"2001:db8::1", {400ms}}, {"192.0.2.1", {500ms}}, {"2001:db8::2", {500ms}}};
  const EyeballsOutcome outcome = race({"2001:db8::1", "192.0.2.1", "2001:db8::2"});
  ASSERT_TRUE(outcome.socket.valid());
  EXPECT_EQ(outcome.address.host(), "2001:db8::1");
  EXPECT_EQ(script_.log,
            (std::vector<std::string>{"start 2001:db8::1 @0", "start 192.0.2.1 @250", "connected 2001:db8::1 @400",
                                      "canceled 192.0.2.1 @400"}))
      << "the third attempt was due at 500 ms, after the winner";
}

TEST_F(HappyEyeballsTest, WhenEveryAttemptFailsEachFailureIsReported) {
  script_.steps = {{"192.0.2.1", {300ms, ETIMEDOUT}}, {"192.0.2.2", {10ms, ECONNREFUSED}}};
  const EyeballsOutcome outcome = race({"192.0.2.1", "192.0.2.2"});
  EXPECT_FALSE(outcome.socket.valid());
  EXPECT_EQ(script_.log, (std::vector<std::string>{"start 192.0.2.1 @0", "start 192.0.2.2 @250",
                                                   "failed 192.0.2.2 @260", "failed 192.0.2.1 @300"}));
  ASSERT_EQ(outcome.failures.size(), 2u);
  EXPECT_EQ(outcome.failures[0].first.host(), "192.0.2.2");
  EXPECT_EQ(outcome.failures[1].first.host(), "192.0.2.1");
}

TEST_F(HappyEyeballsTest, CancelingTheCallerCancelsEveryAttempt) {
  script_.steps = {{"2001:db8::1", {10s}}, {"192.0.2.1", {10s}}};
  bool canceled = false;
  ConnectAttempt attempt = [this](SocketAddress to) { return scripted_attempt(script_, to); };
  auto run = [](ConnectAttempt connect, bool& out) -> Task<void> {
    std::vector<SocketAddress> addresses = {address("2001:db8::1"), address("192.0.2.1")};
    try {
      (void)co_await happy_eyeballs(std::move(addresses), 250ms, std::move(connect));
    } catch (const TaskCanceled&) {
      out = true;
      throw;
    }
  };
  auto handle = scheduler_.spawn(run(std::move(attempt), canceled));
  auto canceler = [](JoinHandle<void>& target) -> Task<void> {
    co_await Sleep{300ms};
    target.cancel();
  };
  (void)scheduler_.spawn(canceler(handle));
  scheduler_.run();
  EXPECT_TRUE(canceled);
  EXPECT_EQ(script_.log, (std::vector<std::string>{"start 2001:db8::1 @0", "start 192.0.2.1 @250",
                                                   "canceled 2001:db8::1 @300", "canceled 192.0.2.1 @300"}));
}

}  // namespace
}  // namespace tiffany::detail

// World: several schedulers on one thread and one virtual clock, stepped by seed.
#include "sim/world.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/wall_clock.hpp>
#include <tiffany/reactor/recv.hpp>

namespace tiffany::sim {
namespace {

using namespace std::chrono_literals;

Task<void> sleeps_then_notes(std::chrono::milliseconds how_long, std::string name, std::vector<std::string>& order) {
  co_await Sleep{how_long};
  order.push_back(name);
}

TEST(WorldTest, TimeJumpsToTheEarliestTimerOfAnyHost) {
  World world(1);
  Host& first = world.add_host("first");
  Host& second = world.add_host("second");
  std::vector<std::string> order;
  world.spawn(first, sleeps_then_notes(30ms, "first 30", order));
  world.spawn(second, sleeps_then_notes(10ms, "second 10", order));
  world.spawn(first, sleeps_then_notes(20ms, "first 20", order));
  EXPECT_EQ(world.run(), RunEnd::quiet);
  EXPECT_EQ(order, (std::vector<std::string>{"second 10", "first 20", "first 30"}));
  EXPECT_EQ(world.elapsed(), 30ms);
}

TEST(WorldTest, TimersOfHoursCostNoWaiting) {
  World world(2);
  Host& host = world.add_host("host");
  std::vector<std::string> order;
  world.spawn(host, sleeps_then_notes(std::chrono::duration_cast<std::chrono::milliseconds>(5h), "late", order));
  EXPECT_EQ(world.run(), RunEnd::quiet);
  EXPECT_EQ(order.size(), 1u);
  EXPECT_EQ(world.elapsed(), 5h);
}

std::timespec wall_seen = {};
Task<void> notes_wall_clock() {
  co_await Sleep{1500ms};
  wall_seen = wall_now();
}

TEST(WorldTest, TheWallClockFollowsVirtualTimeFromAFixedEpoch) {
  World world(3);
  Host& host = world.add_host("host");
  world.spawn(host, notes_wall_clock());
  ASSERT_EQ(world.run(), RunEnd::quiet);
  EXPECT_EQ(wall_seen.tv_sec, World::kWallEpochSeconds + 1);
  EXPECT_EQ(wall_seen.tv_nsec, 500'000'000);
}

Task<void> waits_for_bytes(int fd) {
  char byte;
  co_await Recv{fd, &byte, 1};
}

TEST(WorldTest, TheServersLogLinesGoToTheRunAtTheirVirtualTime) {
  World world(7);
  Host& host = world.add_host("logger");
  world.spawn(host, []() -> Task<void> {
    co_await Sleep{1500ms};
    log_sink().write(LogLevel::warn, "pubsub: lost Redis");
  }());
  EXPECT_EQ(world.run(), RunEnd::quiet);
  EXPECT_EQ(world.log(), std::vector<std::string>{"1500 ms [warn] pubsub: lost Redis"});
  for (std::size_t i = 0; i < World::kLogLines + 5; ++i) log_sink().write(LogLevel::info, std::to_string(i));
  ASSERT_EQ(world.log().size(), World::kLogLines) << "the run keeps only its last lines";
  EXPECT_EQ(world.log().back(), "1500 ms [info] " + std::to_string(World::kLogLines + 4));
}

TEST(WorldTest, ARunWhereEveryHostWaitsOnSilentSocketsEndsAsWaiting) {
  World world(4);
  Host& host = world.add_host("host");
  const auto [a, b] = world.network().socket_pair();
  world.spawn(host, waits_for_bytes(a));
  EXPECT_EQ(world.run(), RunEnd::waiting);
  world.network().close(a);
  world.network().close(b);
}

TEST(WorldTest, AnOperationOnARealDescriptorFailsAndIsCounted) {
  World world(5);
  Host& host = world.add_host("host");
  world.spawn(host, waits_for_bytes(0));  // standard input: not the simulation's
  EXPECT_EQ(world.run(), RunEnd::quiet);
  EXPECT_EQ(host.reactor->foreign_operations(), 1u);
}

}  // namespace
}  // namespace tiffany::sim

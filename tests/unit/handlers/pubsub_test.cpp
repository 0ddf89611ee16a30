// The SDK's pub/sub (handlers/pubsub.hpp) on one worker: delivery in order, leave, the drop of a
// subscription that falls behind, close, and Redis refused where no relay is installed (the test kit).
#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/yield.hpp>
#include <tiffany/handlers/pubsub.hpp>
#include <tiffany/handlers/testkit/plugin_harness.hpp>

#include "handlers/internal/pubsub/channel_relay.hpp"
#include "handlers/internal/pubsub/pubsub_bus.hpp"
#include "handlers/internal/pubsub/worker_hub.hpp"

namespace tiffany::pubsub {
namespace {

// Takes every message queued now ("channel:data" each), stopping at the first wait.
Task<void> drain(Subscription& subscription, std::vector<std::string>& seen, bool& ended) {
  for (;;) {
    std::optional<Message> message = co_await subscription.next();
    if (!message) {
      ended = true;
      co_return;
    }
    seen.push_back(message->channel() + ":" + message->data());
  }
}

class PubSubSdk : public ::testing::Test {
 protected:
  // Runs `body` as a task on the scheduler (the channels need a worker), then every task until idle.
  template <class Body>
  void on_worker(Body body) {
    auto task = [](Body run) -> Task<void> {
      run();
      co_return;
    };
    scheduler_.spawn(task(std::move(body))).reset();
    scheduler_.run_until_idle();
  }

  ManualClock clock_;
  Scheduler scheduler_{SchedulerOptions{.clock = &clock_}};
};

TEST_F(PubSubSdk, APublishReachesEverySubscriptionOfItsChannelInOrder) {
  Channels channels("unit-order");
  std::optional<Subscription> room, both;
  std::vector<std::string> room_seen, both_seen;
  bool room_ended = false, both_ended = false;
  on_worker([&] {
    room.emplace(channels, 16);
    both.emplace(channels, 16);
    scheduler_.spawn(room->join("room")).reset();
    scheduler_.spawn(both->join("room")).reset();
    scheduler_.spawn(both->join("hall")).reset();
  });
  EXPECT_TRUE(room->is_joined("room"));
  EXPECT_FALSE(room->is_joined("hall"));
  on_worker([&] {
    EXPECT_TRUE(channels.publish("room", "1"));
    EXPECT_TRUE(channels.publish("hall", "2"));
    EXPECT_TRUE(channels.publish("nobody", "3"));
    EXPECT_TRUE(channels.publish("room", "4"));
    scheduler_.spawn(drain(*room, room_seen, room_ended)).reset();
    scheduler_.spawn(drain(*both, both_seen, both_ended)).reset();
  });
  EXPECT_EQ(room_seen, (std::vector<std::string>{"room:1", "room:4"}));
  EXPECT_EQ(both_seen, (std::vector<std::string>{"room:1", "hall:2", "room:4"}));
  EXPECT_FALSE(room_ended);  // waiting for more
  on_worker([&] { room->close(); both->close(); });
  EXPECT_TRUE(room_ended);
  EXPECT_TRUE(both_ended);
  EXPECT_FALSE(room->overflowed());
}

TEST_F(PubSubSdk, LeavingStopsDeliveryButWhatWasQueuedStillArrives) {
  Channels channels("unit-leave");
  std::optional<Subscription> subscription;
  std::vector<std::string> seen;
  bool ended = false;
  on_worker([&] {
    subscription.emplace(channels, 16);
    scheduler_.spawn(subscription->join("room")).reset();
  });
  on_worker([&] {
    channels.publish("room", "before");
    subscription->leave("room");
    channels.publish("room", "after");
    scheduler_.spawn(drain(*subscription, seen, ended)).reset();
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"room:before"}));
  EXPECT_FALSE(subscription->is_joined("room"));
  on_worker([&] { subscription->close(); });
}

TEST_F(PubSubSdk, ASubscriptionThatFallsBehindIsDroppedAndTheOthersGetEverything) {
  Channels channels("unit-slow");
  std::optional<Subscription> slow, fast;
  std::vector<std::string> slow_seen, fast_seen;
  bool slow_ended = false, fast_ended = false;
  on_worker([&] {
    slow.emplace(channels, 2);
    fast.emplace(channels, 100);
    scheduler_.spawn(slow->join("room")).reset();
    scheduler_.spawn(fast->join("room")).reset();
  });
  on_worker([&] {
    for (const char* data : {"1", "2", "3", "4"}) channels.publish("room", data);
    scheduler_.spawn(drain(*slow, slow_seen, slow_ended)).reset();
    scheduler_.spawn(drain(*fast, fast_seen, fast_ended)).reset();
  });
  EXPECT_TRUE(slow->overflowed());
  EXPECT_TRUE(slow_ended);
  EXPECT_TRUE(slow_seen.empty());  // dropped, not handed a gap
  EXPECT_FALSE(slow->is_joined("room"));
  EXPECT_EQ(fast_seen, (std::vector<std::string>{"room:1", "room:2", "room:3", "room:4"}));
  on_worker([&] { fast->close(); });
}

// A detached task still in next() when its Subscription goes (a plugin that spawned and forgot
// it): its wake-up was queued by a publish, the destructor ends the subscription, and the task
// resumes to find the state alive and the subscription over (ASan would see a use after free).
TEST_F(PubSubSdk, ATaskStillWaitingInNextWhenItsSubscriptionGoesGetsNothing) {
  Channels channels("unit-gone");
  std::optional<Subscription> subscription;
  std::vector<std::string> seen;
  bool ended = false;
  on_worker([&] {
    subscription.emplace(channels, 4);
    scheduler_.spawn(subscription->join("room")).reset();
  });
  on_worker([&] { scheduler_.spawn(drain(*subscription, seen, ended)).reset(); });
  EXPECT_FALSE(ended);
  on_worker([&] {
    channels.publish("room", "late");
    subscription.reset();
  });
  EXPECT_TRUE(ended);
  EXPECT_TRUE(seen.empty());
}

TEST_F(PubSubSdk, ASecondTaskWaitingInNextAtOnceIsALogicError) {
  Channels channels("unit-twice");
  std::optional<Subscription> subscription;
  std::vector<std::string> seen;
  bool ended = false, refused = false;
  on_worker([&] {
    subscription.emplace(channels, 4);
    scheduler_.spawn(drain(*subscription, seen, ended)).reset();
  });
  on_worker([&] {
    auto second = [](Subscription& s, bool& threw) -> Task<void> {
      try {
        (void)co_await s.next();
      } catch (const std::logic_error&) {
        threw = true;
      }
    };
    scheduler_.spawn(second(*subscription, refused)).reset();
  });
  EXPECT_TRUE(refused);
  on_worker([&] { subscription->close(); });
  EXPECT_TRUE(ended);
}

TEST_F(PubSubSdk, JoinSaysWhetherTheSubscriptionIsLive) {
  Channels channels("unit-join");
  std::optional<Subscription> subscription;
  std::optional<bool> live, after_close;
  auto joining = [](Subscription& s, std::string channel, std::optional<bool>& out) -> Task<void> {
    out = co_await s.join(std::move(channel));
  };
  on_worker([&] {
    subscription.emplace(channels, 4);
    scheduler_.spawn(joining(*subscription, "room", live)).reset();
  });
  EXPECT_EQ(live, true);
  on_worker([&] {
    subscription->close();
    scheduler_.spawn(joining(*subscription, "hall", after_close)).reset();
  });
  EXPECT_EQ(after_close, false);
}

// A worker that stops taking messages (its scheduler stalled, on its own thread) is handed at most
// kMaxInFlight of them; the rest are dropped and counted, rather than its queue growing without bound.
TEST(PubSubBusLimits, AStalledWorkerIsHandedAtMostMaxInFlightMessages) {
  Channels here("unit-stalled");
  Channels there("unit-stalled");
  std::promise<void> joined;
  std::promise<void> release;
  std::size_t delivered_there = 0;
  std::thread stalled([&] {
    ManualClock clock;
    Scheduler scheduler(SchedulerOptions{.clock = &clock});
    Subscription subscription(there, PubSubBus::kMaxInFlight + 1000);
    scheduler.spawn(subscription.join("room")).reset();
    scheduler.run_until_idle();
    joined.set_value();
    release.get_future().wait();  // stalled: nothing runs here meanwhile
    scheduler.run_until_idle();   // now it takes what it was handed
    scheduler.spawn([](Subscription& s, std::size_t& count) -> Task<void> {
      while (s.overflowed() == false) {
        std::optional<Message> message = co_await s.next();
        if (!message) break;
        // Why yield now and then: each next() here completes at once, and under the sanitizers
        // (no tail calls) 65,536 of them in a row would nest until the stack runs out.
        if (++count % 256 == 0) co_await Yield{};
      }
    }(subscription, delivered_there)).reset();
    scheduler.run_until_idle();
    subscription.close();
    scheduler.run_until_idle();
  });
  joined.get_future().wait();
  ManualClock clock;
  Scheduler scheduler(SchedulerOptions{.clock = &clock});
  constexpr std::size_t kPublished = PubSubBus::kMaxInFlight + 500;
  auto publish_all = [](Channels& channels) -> Task<void> {
    for (std::size_t i = 0; i < kPublished; ++i) channels.publish("room", std::to_string(i));
    co_return;
  };
  scheduler.spawn(publish_all(here)).reset();
  scheduler.run_until_idle();
  const std::shared_ptr<PubSubBus> bus = PubSubBus::named("unit-stalled", std::nullopt);
  EXPECT_EQ(bus->dropped(), 500u);
  release.set_value();
  stalled.join();
  EXPECT_EQ(delivered_there, PubSubBus::kMaxInFlight);  // the first ones, all of them
}

// A relay standing in for Redis: it records what the hub asks of it; the test confirms and delivers.
class FakeRelay final : public ChannelRelay {
 public:
  bool publish(const std::string& channel, std::string_view data) override {
    published.push_back(channel + ":" + std::string(data));
    return true;
  }
  void subscribe(const std::string& channel) override { subscribed.push_back(channel); }
  void unsubscribe(const std::string& channel) override { unsubscribed.push_back(channel); }
  std::vector<std::string> published, subscribed, unsubscribed;
};

FakeRelay* g_fake_relay = nullptr;
std::weak_ptr<WorkerHub> g_fake_hub;

std::unique_ptr<ChannelRelay> start_fake_relay(const RedisSettings&, const std::shared_ptr<WorkerHub>& hub) {
  auto relay = std::make_unique<FakeRelay>();
  g_fake_relay = relay.get();
  g_fake_hub = hub;
  return relay;
}

// With a relay (Redis), a join returns only once the relay confirms the channel; joins repeated
// meanwhile wait on the same confirmation; a message comes back through the relay, not locally.
TEST(PubSubSdkRelay, AJoinWaitsForTheRelaysConfirmationAndMessagesComeBackThroughIt) {
  set_relay_starter(&start_fake_relay);
  {
    testkit::PluginHarness harness;
    Channels channels(harness.params(R"({"bus": "unit-relay", "redis": "127.0.0.1:1"})"));
    std::optional<Subscription> subscription;
    std::vector<std::optional<bool>> joins(3);
    auto joining = [](Subscription& s, std::string channel, std::optional<bool>& out) -> Task<void> {
      out = co_await s.join(std::move(channel));
    };
    auto on_worker = [&](auto body) {
      auto task = [](decltype(body) run) -> Task<void> {
        run();
        co_return;
      };
      harness.scheduler().spawn(task(body)).reset();
      harness.run_until_idle();
    };
    on_worker([&] {
      subscription.emplace(channels, 8);
      harness.scheduler().spawn(joining(*subscription, "room", joins[0])).reset();
      harness.scheduler().spawn(joining(*subscription, "room", joins[1])).reset();
      harness.scheduler().spawn(joining(*subscription, "hall", joins[2])).reset();
    });
    ASSERT_NE(g_fake_relay, nullptr);
    EXPECT_EQ(g_fake_relay->subscribed, (std::vector<std::string>{"room", "hall"}));
    EXPECT_FALSE(joins[0] || joins[1] || joins[2]);  // all waiting for Redis
    on_worker([&] {
      g_fake_hub.lock()->redis_confirmed("room");
      subscription->leave("hall");  // before its confirmation
    });
    EXPECT_EQ(joins[0], true);
    EXPECT_EQ(joins[1], true);
    EXPECT_EQ(joins[2], false);
    EXPECT_EQ(g_fake_relay->unsubscribed, (std::vector<std::string>{"hall"}));
    std::vector<std::string> seen;
    bool ended = false;
    on_worker([&] {
      EXPECT_TRUE(channels.publish("room", "hi"));
      g_fake_hub.lock()->deliver_local(Message("room", "from redis"));
      harness.scheduler().spawn(drain(*subscription, seen, ended)).reset();
    });
    EXPECT_EQ(g_fake_relay->published, (std::vector<std::string>{"room:hi"}));  // not delivered locally
    EXPECT_EQ(seen, (std::vector<std::string>{"room:from redis"}));
    on_worker([&] { subscription.reset(); });
    EXPECT_TRUE(ended);
  }
  set_relay_starter(nullptr);
  g_fake_relay = nullptr;
}

TEST(PubSubSdkParams, ABusOnRedisWhereNoRelayIsInstalledIsAParamErrorNamingRedis) {
  testkit::PluginHarness harness;
  try {
    Channels channels(harness.params(R"({"redis": "127.0.0.1:6379"})"));
    FAIL() << "a bus on Redis was made where no Redis relay is installed";
  } catch (const ParamError& error) {
    EXPECT_EQ(error.key(), "redis");
    EXPECT_NE(std::string(error.what()).find("Redis is not available here"), std::string::npos) << error.what();
  }
  EXPECT_THROW(Channels(harness.params(R"({"redis": "nowhere"})")), ParamError);
  EXPECT_THROW(Channels(harness.params(R"({"bus": ""})")), ParamError);
}

TEST(PubSubSdkParams, UsedOutsideAWorkerItSaysSoInsteadOfCrashing) {
  Channels channels("unit-outside");
  EXPECT_THROW(channels.publish("room", "x"), std::logic_error);  // a constructor, say: no scheduler here
}

TEST_F(PubSubSdk, AMessageSharesOneBodyAmongItsCopies) {
  const Message message("room", std::string(1000, 'x'));
  const Message copy = message;  // NOLINT(performance-unnecessary-copy-initialization): the point
  EXPECT_EQ(&copy.data(), &message.data());
  EXPECT_EQ(copy.channel(), "room");
}

}  // namespace
}  // namespace tiffany::pubsub

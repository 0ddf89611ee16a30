// Plugin contexts and lifecycle: typed state, background tasks canceled at
// drain, and the hooks in the server's order through PluginHost.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/task_canceled.hpp>

#include "handlers/engine/plugin_host.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;

struct Counter {
  explicit Counter(int start) : value(start) {}
  int value;
};

TEST(PluginState, HoldsOneObjectPerTypeAndSaysWhenThereIsNone) {
  AppContext app("shop", 2);
  EXPECT_EQ(app.find<Counter>(), nullptr);
  EXPECT_THROW(app.get<Counter>(), std::logic_error);
  app.emplace<Counter>(7).value += 1;
  EXPECT_EQ(app.get<Counter>().value, 8);
  EXPECT_THROW(app.emplace<Counter>(1), std::logic_error);
  app.emplace<std::string>("other type");
  EXPECT_EQ(app.get<std::string>(), "other type");
}

TEST(PluginState, DestroysNewestFirst) {
  std::vector<std::string> destroyed;
  struct Noisy {
    Noisy(std::vector<std::string>& log, std::string name) : log_(log), name_(std::move(name)) {}
    ~Noisy() { log_.push_back(name_); }
    std::vector<std::string>& log_;
    std::string name_;
  };
  struct Other : Noisy {
    using Noisy::Noisy;
  };
  {
    AppContext app("p", 1);
    app.emplace<Noisy>(destroyed, "first");
    app.emplace<Other>(destroyed, "second");
  }
  EXPECT_EQ(destroyed, (std::vector<std::string>{"second", "first"}));
}

Task<void> tick_forever(int& ticks, bool& saw_cancel) {
  try {
    for (;;) {
      co_await Sleep{10ms};
      ++ticks;
    }
  } catch (const TaskCanceled&) {
    saw_cancel = true;
    throw;
  }
}

TEST(WorkerContextTasks, StartOnceAttachedRunUntilCanceledAndThenRefuseMore) {
  AppContext app("p", 1);
  WorkerContext worker(app, 0);
  ManualClock clock;
  Scheduler scheduler(SchedulerOptions{.clock = &clock});
  int ticks = 0;
  bool canceled = false;
  worker.spawn(tick_forever(ticks, canceled));  // queued: no scheduler yet
  scheduler.run_until_idle();
  EXPECT_EQ(scheduler.task_count(), 0u);
  worker.attach(scheduler);
  scheduler.advance(35ms);
  EXPECT_EQ(ticks, 3);
  worker.cancel_tasks();
  scheduler.run_until_idle();
  EXPECT_TRUE(canceled);
  EXPECT_THROW(worker.spawn(tick_forever(ticks, canceled)), std::logic_error);
  worker.release_tasks();
}

TEST(WorkerContextTasks, TheConfigCheckContextRunsNoTask) {
  AppContext app("p", 1);
  WorkerContext checking(app, -1);
  EXPECT_TRUE(checking.checking());
  int ticks = 0;
  bool canceled = false;
  EXPECT_THROW(checking.spawn(tick_forever(ticks, canceled)), std::logic_error);
}

// Records each hook as "<hook> <worker>".
class RecordingPlugin final : public Plugin {
 public:
  explicit RecordingPlugin(std::vector<std::string>& calls, bool fail_start = false)
      : calls_(calls), fail_start_(fail_start) {}
  void start(AppContext& app) override {
    calls_.push_back(app.plugin_name() + " start " + std::to_string(app.workers()));
    if (fail_start_) throw std::runtime_error("no licence");
    app.emplace<Counter>(0);
  }
  void start_worker(WorkerContext& worker) override {
    calls_.push_back(worker.app().plugin_name() + " start_worker " + std::to_string(worker.index()));
    worker.app().get<Counter>().value++;
  }
  void stop_worker(WorkerContext& worker) override {
    calls_.push_back(worker.app().plugin_name() + " stop_worker " + std::to_string(worker.index()));
  }
  void stop(AppContext& app) override {
    calls_.push_back(app.plugin_name() + " stop " + std::to_string(app.get<Counter>().value));
  }

 private:
  std::vector<std::string>& calls_;
  bool fail_start_;
};

TEST(PluginHostLifecycle, RunsHooksInTheServersOrderEachOnce) {
  std::vector<std::string> calls;
  {
    PluginHost host;
    PluginHost::set_hooks(host.add("/opt/liba.so", nullptr), std::make_unique<RecordingPlugin>(calls));
    PluginHost::set_hooks(host.add("/opt/libb.so", nullptr), std::make_unique<RecordingPlugin>(calls));
    host.start(2);
    host.start_worker(0);
    host.start_worker(1);
    host.drain_worker(1);
    host.drain_worker(1);  // once only
    host.drain_worker(0);
    host.stop();
  }
  EXPECT_EQ(calls, (std::vector<std::string>{"a start 2", "b start 2", "a start_worker 0", "b start_worker 0",
                                             "a start_worker 1", "b start_worker 1", "b stop_worker 1",
                                             "a stop_worker 1", "b stop_worker 0", "a stop_worker 0", "b stop 2",
                                             "a stop 2"}));
}

TEST(PluginHostLifecycle, AFailedStartNamesThePluginAndStopsTheOnesStarted) {
  std::vector<std::string> calls;
  PluginHost host;
  PluginHost::set_hooks(host.add("/opt/liba.so", nullptr), std::make_unique<RecordingPlugin>(calls));
  PluginHost::set_hooks(host.add("/opt/libbad.so", nullptr), std::make_unique<RecordingPlugin>(calls, true));
  try {
    host.start(1);
    FAIL() << "start should throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "plugin \"bad\" (/opt/libbad.so) failed to start: no licence");
  }
  EXPECT_EQ(calls, (std::vector<std::string>{"a start 1", "bad start 1", "a stop 0"}));
}

TEST(PluginHostLifecycle, HandsTheConfigCheckContextOutsideAWorker) {
  PluginHost host;
  LoadedPlugin& plugin = host.add("/x/libkv.so", nullptr);
  EXPECT_EQ(plugin.name(), "kv");
  EXPECT_TRUE(plugin.worker(-1).checking());
  EXPECT_TRUE(plugin.worker(0).checking());  // before start: no worker contexts yet
  host.start(2);
  EXPECT_EQ(plugin.worker(1).index(), 1);
  EXPECT_EQ(&plugin.worker(1).app(), &plugin.app());
  EXPECT_THROW(PluginHost::set_hooks(plugin, nullptr), std::invalid_argument);
}

TEST(PluginName, ComesFromTheFileName) {
  EXPECT_EQ(plugin_name_from_path("/opt/p/libshop.so"), "shop");
  EXPECT_EQ(plugin_name_from_path("shop.so.1"), "shop");
  EXPECT_EQ(plugin_name_from_path("/a/b/plugin"), "plugin");
}

}  // namespace
}  // namespace tiffany

// Micro-benchmarks of the PYOS kernel (Google Benchmark): spawning, switching,
// joining, and cross-thread wake-up latency. Run: build/loadtest/micro/coro_bench
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <tiffany/coro/external_promise.hpp>
#include <tiffany/coro/syscalls.hpp>

#include "reactor/engine/reactor_factory.hpp"

namespace {

using namespace tiffany;

Task<void> empty_task() { co_return; }

// Argument 0: bare. Argument 1: the settings docs/tasks.md suggests in production, a slow-task
// warning at 100 ms and a trace ring of 4,096 events.
SchedulerOptions options_for(const benchmark::State& state) {
  if (state.range(0) == 0) return SchedulerOptions{};
  return SchedulerOptions{.slow_task_threshold = std::chrono::milliseconds(100), .trace_capacity = 4096};
}

// Spawn, run and complete empty tasks, 10,000 per batch.
void BM_SpawnRunComplete(benchmark::State& state) {
  constexpr int kBatch = 10'000;
  Scheduler scheduler(options_for(state));
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) (void)scheduler.spawn(empty_task());
    scheduler.run();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_SpawnRunComplete)->ArgName("instrumented")->Arg(0)->Arg(1);

// Two tasks handing the CPU back and forth with Yield.
void BM_YieldRoundTrip(benchmark::State& state) {
  constexpr int kRoundTrips = 100'000;
  Scheduler scheduler(options_for(state));
  auto ping = []() -> Task<void> {
    for (int i = 0; i < kRoundTrips; ++i) co_await Yield{};
  };
  for (auto _ : state) {
    (void)scheduler.spawn(ping());
    (void)scheduler.spawn(ping());
    scheduler.run();
  }
  // One round trip: A yields to B and B yields back to A.
  state.SetItemsProcessed(state.iterations() * kRoundTrips);
  state.counters["ns_per_round_trip"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kRoundTrips),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_YieldRoundTrip)->ArgName("instrumented")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Join of a child that has already finished.
void BM_JoinFinishedTask(benchmark::State& state) {
  constexpr int kBatch = 10'000;
  Scheduler scheduler(options_for(state));
  std::vector<JoinHandle<void>> handles;
  for (auto _ : state) {
    state.PauseTiming();
    handles.clear();
    for (int i = 0; i < kBatch; ++i) handles.push_back(scheduler.spawn(empty_task()));
    scheduler.run();  // all children finish; their handles keep them in the table
    auto joiner = [](std::vector<JoinHandle<void>>& all) -> Task<void> {
      for (auto& handle : all) co_await Join{std::move(handle)};
    };
    (void)scheduler.spawn(joiner(handles));
    state.ResumeTiming();
    scheduler.run();  // one resume of the joiner, which joins every finished child
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_JoinFinishedTask)->ArgName("instrumented")->Arg(0)->Arg(1);

// A promise completed on another thread, to the waiting task's resumption,
// with the scheduler asleep in io_uring_enter (the real server's situation).
void BM_ExternalPromiseLatency(benchmark::State& state) {
  const ChosenReactor reactor = make_reactor(BackendChoice::io_uring);
  Scheduler scheduler(reactor.reactor.get());
  std::vector<double> latencies_ns;
  for (auto _ : state) {
    ExternalPromise<std::chrono::steady_clock::time_point> promise;
    auto waiter = [](ExternalFuture<std::chrono::steady_clock::time_point> future,
                     std::vector<double>& out) -> Task<void> {
      const auto sent = co_await std::move(future);
      out.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - sent).count());
    };
    (void)scheduler.spawn(waiter(promise.future(), latencies_ns));
    scheduler.run_until_idle();  // parked
    std::thread completer([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // let the scheduler fall asleep
      promise.set_value(std::chrono::steady_clock::now());
    });
    scheduler.run();
    completer.join();
  }
  std::sort(latencies_ns.begin(), latencies_ns.end());
  if (!latencies_ns.empty()) {
    state.counters["median_us"] = latencies_ns[latencies_ns.size() / 2] / 1000;
    state.counters["p99_us"] = latencies_ns[latencies_ns.size() * 99 / 100] / 1000;
  }
}
BENCHMARK(BM_ExternalPromiseLatency)->Iterations(2000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

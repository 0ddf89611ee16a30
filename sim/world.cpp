// World: picks the next host by seed, moves virtual time when none can run, hashes what happened.
#include "sim/world.hpp"

#include <cstddef>
#include <ostream>

namespace tiffany::sim {
namespace {
constexpr std::size_t kTraceCapacity = 1 << 16;  // a step records a handful of events; the ring is read after each
}

World::World(std::uint64_t seed, NetworkProfile profile)
    : seed_(seed),
      random_(seed),
      start_(clock_.now()),
      network_(clock_, random_, profile),
      socket_calls_(network_),
      socket_calls_scope_(socket_calls_),
      wall_clock_(&World::wall_time, this),
      entropy_random_(seed ^ 0xd1b54a32d192ed03ULL),
      entropy_(&World::draw_entropy, this) {
  set_log_sink(&log_capture_);
}

void World::LogCapture::write(LogLevel level, std::string_view line) noexcept {
  try {
    if (lines.size() == kLogLines) lines.erase(lines.begin());
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(world.elapsed()).count();
    lines.push_back(std::to_string(ms) + " ms [" + std::string(log_level_name(level)) + "] " + std::string(line));
  } catch (...) {
    // A line that cannot be kept is lost, as a full disk loses one.
  }
}

void World::draw_entropy(void* world, void* into, std::size_t size) noexcept {
  auto* bytes = static_cast<unsigned char*>(into);
  SeededRandom& random = static_cast<World*>(world)->entropy_random_;
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>(random.next());
}

World::~World() {
  // Why each under its own scope: destroying a host's unfinished tasks
  // cancels their operations and drops their handles on that host.
  while (!hosts_.empty()) {
    Host& host = *hosts_.back();
    {
      Reactor::CurrentScope reactor(*host.reactor);
      if (host.own_scheduler) {
        Scheduler::CurrentScope scheduler(*host.own_scheduler);
        host.own_scheduler.reset();
      }
      host.reactor.reset();
    }
    hosts_.pop_back();
  }
  set_log_sink(nullptr);  // the hosts' last lines came in above
}

std::timespec World::wall_time(const void* world) noexcept {
  const auto& self = *static_cast<const World*>(world);
  const auto since = std::chrono::duration_cast<std::chrono::nanoseconds>(self.clock_.now() - self.start_).count();
  return std::timespec{.tv_sec = static_cast<std::time_t>(kWallEpochSeconds + since / 1'000'000'000),
                       .tv_nsec = static_cast<long>(since % 1'000'000'000)};
}

Host& World::add_bare_host(std::string name) {
  auto host = std::make_unique<Host>();
  host->name = std::move(name);
  const int index = static_cast<int>(hosts_.size());
  host->reactor = std::make_unique<SimReactor>(network_, trace_, index, random_.chance(500'000));
  hosts_.push_back(std::move(host));
  return *hosts_.back();
}

Host& World::add_host(std::string name) {
  Host& host = add_bare_host(std::move(name));
  host.own_scheduler = std::make_unique<Scheduler>(SchedulerOptions{.poller = host.reactor.get(),
                                                                    .clock = &clock_,
                                                                    .trace_capacity = kTraceCapacity,
                                                                    .worker = static_cast<int>(hosts_.size() - 1)});
  attach(host, *host.own_scheduler);
  return host;
}

void World::attach(Host& host, Scheduler& scheduler) {
  host.scheduler = &scheduler;
  host.trace_read = scheduler.trace() != nullptr ? scheduler.trace()->recorded() : 0;
}

std::size_t World::foreign_operations() const noexcept {
  std::size_t count = 0;
  for (const auto& host : hosts_) count += host->reactor->foreign_operations();
  return count;
}

bool World::runnable(const Host& host) const {
  if (!takes_steps(host)) return false;
  if (host.scheduler->has_ready_work() || host.reactor->has_due_completions()) return true;
  const auto timer = host.scheduler->next_timer();
  return timer && *timer <= clock_.now();
}

void World::mix_task_events(Host& host) {
  const TaskTrace* trace = host.scheduler->trace();
  if (trace == nullptr) return;
  for (; host.trace_read < trace->recorded(); ++host.trace_read) {
    const TaskTrace::Entry& entry = trace->recorded_at(host.trace_read);
    trace_.mix(static_cast<std::uint64_t>(entry.time_ns));
    trace_.mix(entry.task);
    trace_.mix(static_cast<std::uint64_t>(entry.event));
    if (std::ostream* lines = trace_.event()) {
      *lines << entry.time_ns << " host " << host.name << " task " << entry.task << ' ' << to_string(entry.event)
             << '\n';
    }
  }
}

void World::step(Host& host) {
  Scheduler::CurrentScope scheduler(*host.scheduler);
  Reactor::CurrentScope reactor(*host.reactor);
  host.scheduler->step();
  mix_task_events(host);
  ++steps_;
}

RunEnd World::run(std::chrono::nanoseconds limit, std::uint64_t max_steps) {
  return run_until([] { return false; }, limit, max_steps);
}

RunEnd World::run_until(const std::function<bool()>& done, std::chrono::nanoseconds limit, std::uint64_t max_steps) {
  const ManualClock::time_point until = clock_.now() + limit;
  const std::uint64_t last_step = steps_ + max_steps;
  std::vector<Host*> ready;
  for (;;) {
    if (done()) return RunEnd::done;
    if (steps_ >= last_step) return RunEnd::step_limit;
    ready.clear();
    for (const auto& host : hosts_) {
      if (runnable(*host)) ready.push_back(host.get());
    }
    if (!ready.empty()) {
      step(*ready[random_.below(ready.size())]);
      continue;
    }
    // Nobody can run now: move time to the next thing that will happen.
    std::optional<ManualClock::time_point> next = network_.next_arrival();
    bool in_flight = false;
    for (const auto& host : hosts_) {
      if (!takes_steps(*host)) continue;
      const auto timer = host->scheduler->next_timer();
      if (timer && (!next || *timer < *next)) next = timer;
      in_flight = in_flight || host->reactor->has_pending();
    }
    if (!next) return in_flight ? RunEnd::waiting : RunEnd::quiet;
    if (*next > until) {
      clock_.set(until);
      return RunEnd::time_up;
    }
    clock_.set(*next);
    trace_.mix(static_cast<std::uint64_t>(clock_.now().time_since_epoch().count()));
    if (std::ostream* lines = trace_.event()) *lines << clock_.now().time_since_epoch().count() << " time\n";
  }
}

}  // namespace tiffany::sim

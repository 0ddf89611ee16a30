// ClientPools: slots per origin, the FIFO of waiting requests, idle reuse and the idle sweeper.
#include "client/internal/client_pools.hpp"

#include <algorithm>
#include <utility>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/reactor/reactor.hpp>

#include "reactor/engine/reactor_factory.hpp"

namespace tiffany::detail {

class ClientPools::WaitGuard {
 public:
  WaitGuard(ClientPools& pools, const std::string& origin, Origin& entry,
            std::list<std::shared_ptr<Waiter>>::iterator place) noexcept
      : pools_(pools), origin_(origin), entry_(entry), place_(place), waiter_(*place) {}
  WaitGuard(const WaitGuard&) = delete;
  WaitGuard& operator=(const WaitGuard&) = delete;
  ~WaitGuard() {
    if (!waiter_->granted) {
      entry_.waiters.erase(place_);
    } else if (!used_) {
      pools_.give_back(origin_, nullptr, false);  // handed a slot as we were canceled: pass it on
    }
  }
  void used() noexcept { used_ = true; }

 private:
  ClientPools& pools_;
  const std::string& origin_;
  Origin& entry_;
  std::list<std::shared_ptr<Waiter>>::iterator place_;
  std::shared_ptr<Waiter> waiter_;
  bool used_ = false;
};

ClientPools::Origin& ClientPools::entry(const std::string& origin) {
  if (last_key_ != nullptr && *last_key_ == origin) return *last_entry_;
  auto& node = *origins_.try_emplace(origin).first;
  last_key_ = &node.first;
  last_entry_ = &node.second;
  return node.second;
}

bool ClientPools::try_reserve(const std::string& origin) {
  Origin& entry = this->entry(origin);
  if (!entry.waiters.empty() || (entry.idle.empty() && entry.busy >= options_.max_per_origin)) return false;
  ++entry.busy;
  return true;
}

Task<void> ClientPools::reserve(const std::string& origin) {
  if (try_reserve(origin)) co_return;
  Origin& entry = this->entry(origin);
  // Why a guard: the wait ends by cancellation (the request's timeout) as
  // often as by a slot, and either way the queue must stay consistent.
  auto place = entry.waiters.insert(entry.waiters.end(), std::make_shared<Waiter>());
  Future<void> slot = (*place)->promise.future();
  WaitGuard guard(*this, origin, entry, place);
  co_await std::move(slot);
  guard.used();  // give_back kept `busy` counted for us
}

std::unique_ptr<ClientConnection> ClientPools::take_idle(const std::string& origin) {
  Origin& entry = this->entry(origin);
  while (!entry.idle.empty()) {
    std::unique_ptr<ClientConnection> connection = std::move(entry.idle.back());
    entry.idle.pop_back();
    if (connection->usable_after_idle()) {
      connection->stop_watching();
      return connection;
    }
  }
  return nullptr;
}

void ClientPools::give_back(const std::string& origin, std::unique_ptr<ClientConnection> connection,
                            bool reusable) noexcept {
  Origin& entry = this->entry(origin);  // Why first: `origin` may die with `connection` below
  if (connection && reusable && !closed_ && entry.idle.size() < options_.max_idle_per_origin) {
    connection->shrink_buffer();
    connection->idle_since = Scheduler::current().now();
    connection->reused = true;
    entry.idle.push_back(std::move(connection));
    start_sweeper();
    // Why only under a running sweeper: it closes the idle connections, and
    // so their watches, when its scheduler ends, while the reactor still is.
    if (watch_idle_ && sweeper_ != 0 && sweeper_scheduler_ == Scheduler::current_or_null()) {
      try {
        entry.idle.back()->watch_idle();
      } catch (...) {
        // Out of memory for the watch: the peek at reuse decides instead.
      }
    }
  }
  connection.reset();  // closes it unless it went idle
  if (entry.waiters.empty()) {
    --entry.busy;
    return;
  }
  std::shared_ptr<Waiter> next = std::move(entry.waiters.front());
  entry.waiters.pop_front();
  next->granted = true;
  next->promise.set_value();
}

ClientPools::SweeperFrameGuard::~SweeperFrameGuard() {
  if (pools_ == nullptr) return;
  for (auto& [key, entry] : pools_->origins_) entry.idle.clear();
  // Why: a later scheduler may sit at this one's address; it has no sweeper yet.
  pools_->sweeper_ = 0;
  pools_->sweeper_scheduler_ = nullptr;
  pools_->watch_idle_ = false;
}

void ClientPools::shut_down() noexcept {
  closed_ = true;
  for (auto& [key, entry] : origins_) entry.idle.clear();
  if (sweeper_ != 0) {
    Scheduler* scheduler = Scheduler::current_or_null();
    if (scheduler != nullptr && scheduler == sweeper_scheduler_) scheduler->cancel(sweeper_);
    sweeper_ = 0;
  }
}

std::size_t ClientPools::idle_count() const noexcept {
  std::size_t count = 0;
  for (const auto& [key, entry] : origins_) count += entry.idle.size();
  return count;
}

std::size_t ClientPools::busy_count() const noexcept {
  std::size_t count = 0;
  for (const auto& [key, entry] : origins_) count += entry.busy;
  return count;
}

std::optional<Scheduler::Clock::time_point> ClientPools::close_expired(Scheduler::Clock::time_point now) noexcept {
  std::optional<Scheduler::Clock::time_point> next;
  for (auto& [key, entry] : origins_) {
    auto& idle = entry.idle;
    idle.erase(std::remove_if(idle.begin(), idle.end(),
                              [&](const std::unique_ptr<ClientConnection>& connection) {
                                return connection->idle_since + options_.idle_timeout <= now;
                              }),
               idle.end());
    if (!idle.empty()) {
      const auto expiry = idle.front()->idle_since + options_.idle_timeout;  // the oldest goes first
      if (!next || expiry < *next) next = expiry;
    }
  }
  return next;
}

void ClientPools::start_sweeper() noexcept {
  Scheduler* scheduler = Scheduler::current_or_null();
  if (closed_ || scheduler == nullptr || (sweeper_ != 0 && sweeper_scheduler_ == scheduler)) return;
  try {
    sweeper_ = scheduler->spawn(sweep(SweeperFrameGuard(shared_from_this()))).tid();
    sweeper_scheduler_ = scheduler;
    // Why only io_uring: it queues a poll and its cancel with the next
    // submission, while epoll would make each an epoll_ctl, dearer than the peek.
    watch_idle_ = is_io_uring(Reactor::current());
  } catch (...) {
    // Out of memory for a task: connections then expire at their next use.
  }
}

// Why one task for all idle connections, sleeping until the oldest expires:
// an idle connection holds no task of its own, and a client with none idle
// holds no sweeper either.
Task<void> ClientPools::sweep(SweeperFrameGuard guard) {
  ClientPools& self = guard.pools();
  try {
    for (;;) {
      Scheduler& scheduler = Scheduler::current();
      const auto next = self.close_expired(scheduler.now());
      if (!next) break;
      co_await Sleep(*next - scheduler.now());
    }
  } catch (const TaskCanceled&) {
    co_return;  // shut_down(): it has forgotten us already
  }
}

}  // namespace tiffany::detail

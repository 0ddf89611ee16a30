// IdlePark: detached pooled receives, the idle timeout, and the drain.
#include "server/transport/idle_park.hpp"

#include <tiffany/coro/sleep.hpp>
#include <tiffany/handlers/server_stats.hpp>
#include <tiffany/reactor/reactor.hpp>

#include "server/transport/stage_timeout.hpp"

namespace tiffany {

IdlePark::Entry::Entry(IdlePark& owner, ParkedConnection&& parked, Scheduler::Clock::time_point idle_since)
    // Why poll first once served: the peer reads our answer before it sends
    // again, so a receive tried now would only fail and be retried.
    : IoOperation(IoRequest{.kind = IoKind::recv_pooled,
                            .poll_first = parked.served,
                            .fd = parked.socket.get(),
                            .flags = owner.recv_flags_}),
      park(owner),
      connection(std::move(parked)),
      since(idle_since) {
  add_stat(Stat::connections_idle);
}

IdlePark::Entry::~Entry() { add_stat(Stat::connections_idle, -1); }

IdlePark::IdlePark(std::chrono::milliseconds idle_timeout, ConnectionTracker* tracker, Serve serve,
                   OnTimeout on_timeout, int recv_flags)
    : idle_timeout_(idle_timeout),
      tracker_(tracker),
      serve_(std::move(serve)),
      on_timeout_(on_timeout),
      recv_flags_(recv_flags) {
  if (tracker_ != nullptr) tracker_->add_drain_listener(*this);
}

void IdlePark::count_timeout(const ParkedConnection&) noexcept {
  tiffany::count_timeout(TimeoutStage::idle);  // the free function, not this one
}

IdlePark::~IdlePark() {
  close_all();
  if (tracker_ != nullptr) tracker_->remove_drain_listener(*this);
}

void IdlePark::park(ParkedConnection&& connection, Scheduler::Clock::time_point idle_since) {
  if (grace_over_) {  // shutting down: the connection closes here
    add_stat(Stat::closed_by_drain);
    return;
  }
  auto* entry = new Entry(*this, std::move(connection), idle_since);
  // Why at the back all the same: the reaper expires from the front, so an
  // `idle_since` earlier than the last entry's (by KeepAliveHold's window
  // at most) only makes this connection's timeout that much late.
  waiting_.push_back(*entry);
  try {
    entry->start_detached(&IdlePark::on_input, entry);
  } catch (...) {  // the reactor could not take it: close the connection
    waiting_.remove(*entry);
    delete entry;
    return;
  }
  start_reaper();
}

void IdlePark::on_input(IoOperation& op, void* context) noexcept {
  Entry* entry = static_cast<Entry*>(context);
  IdlePark& park = entry->park;
  (entry->closing ? park.closing_ : park.waiting_).remove(*entry);
  // Why deleted last: the connection moves from the entry straight into the
  // serving task's frame; deleting the entry closes whatever stayed in it.
  const std::unique_ptr<Entry> owned(entry);
  const IoResult result = op.result();
  if (result && result.bytes() > 0) {  // served even if a close was under way: the bytes won the race
    try {
      (void)Scheduler::current().spawn(park.serve_(std::move(entry->connection), op.take_buffer(), entry->since));
    } catch (...) {  // no memory for the task: the connection closes
    }
    return;
  }
  if (entry->timed_out) park.on_timeout_(entry->connection);
  // The peer closed or failed, or the connection idled too long: deleting the entry closes it.
}

void IdlePark::expire(Entry& entry) noexcept {
  waiting_.remove(entry);
  closing_.push_back(entry);
  entry.closing = true;
  Reactor::current().cancel_async(entry);
}

void IdlePark::start_reaper() {
  if (reaper_running_) return;
  reaper_running_ = true;
  (void)Scheduler::current().spawn(close_when_idle_too_long());
}

Task<void> IdlePark::close_when_idle_too_long() {
  Scheduler& scheduler = Scheduler::current();
  while (!waiting_.empty()) {
    const auto due = waiting_.front()->since + idle_timeout_;
    const auto now = scheduler.now();
    if (now < due) {
      co_await Sleep{due - now};
      continue;
    }
    waiting_.front()->timed_out = true;
    expire(*waiting_.front());
  }
  reaper_running_ = false;
}

void IdlePark::on_drain(std::chrono::milliseconds idle_grace) {
  (void)Scheduler::current().spawn(close_after_grace(idle_grace));
}

Task<void> IdlePark::close_after_grace(std::chrono::milliseconds grace) {
  // Why wait: a request already on its way to an idle connection still gets served.
  co_await Sleep{grace};
  grace_over_ = true;
  while (!waiting_.empty()) {
    add_stat(Stat::closed_by_drain);
    expire(*waiting_.front());
  }
}

void IdlePark::close_all() noexcept {
  // Why first: canceling one receive reaps other completions too, whose
  // callbacks would spawn tasks (maybe with no scheduler left).
  for (List* list : {&waiting_, &closing_}) {
    for (Entry* entry = list->front(); entry != nullptr; entry = List::next(*entry)) entry->orphan();
  }
  for (List* list : {&waiting_, &closing_}) {
    while (Entry* entry = list->pop_front()) {
      delete entry;  // cancels its receive and waits for the kernel to let go
    }
  }
}

}  // namespace tiffany

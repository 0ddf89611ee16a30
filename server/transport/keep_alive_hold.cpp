// KeepAliveHold: the wait in the task, its count, its window and its drain.
#include "server/transport/keep_alive_hold.hpp"

#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/handlers/server_stats.hpp>

namespace tiffany {

HeldInputWait::HeldInputWait(ConnectionHold& hold, ReadLease& into)
    : hold_(hold), into_(into), since_(Scheduler::current().now()), receive_(hold.socket_) {
  hold_.deadline_.rearm(since_ + hold_.hold_.window());
  // Why a member of the drain: it rearms the deadline to the drain's grace.
  if (hold_.tracker_ != nullptr) membership_.emplace(*hold_.tracker_, hold_.deadline_).set_idle(true);
  // Why last: the destructor, which takes them back, runs only once nothing above threw.
  ++hold_.hold_.waiting_;
  add_stat(Stat::connections_idle);
}

HeldInputWait::~HeldInputWait() {
  --hold_.hold_.waiting_;
  add_stat(Stat::connections_idle, -1);
}

HeldInput HeldInputWait::await_resume() {
  IoResult got{0};
  try {
    got = receive_.await_resume();
  } catch (const TaskCanceled&) {
    if (!hold_.deadline_.expired()) throw;  // a shutdown, not the window's end
    hold_.quiet_since_ = since_;
    return HeldInput::quiet;
  }
  // Why: bytes that came as the window ended are served, and its cancellation taken back.
  hold_.deadline_.disarm();
  into_ = receive_.take_buffer();
  return got && got.bytes() > 0 ? HeldInput::arrived : HeldInput::closed;
}

}  // namespace tiffany

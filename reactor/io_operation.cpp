// IoOperation: parking a task on the reactor and waking it on completion.
#include "reactor/io_operation.hpp"

#include "coro/scheduler.hpp"
#include "reactor/reactor.hpp"

namespace tiffany {

IoOperation::~IoOperation() {
  if (in_flight_) reactor_->cancel(*this);
}

void IoOperation::await_suspend(std::coroutine_handle<> caller) {
  scheduler_ = &Scheduler::current();
  reactor_ = &Reactor::current();
  task_ = scheduler_->current_task();
  reactor_->start(*this);
  in_flight_ = true;
  scheduler_->block_current(caller);
}

void IoOperation::complete(int result) noexcept {
  in_flight_ = false;
  result_ = result;
  if (task_ != nullptr) scheduler_->wake(*task_);
}

}  // namespace tiffany

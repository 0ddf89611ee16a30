// IoOperation: parking a task on the reactor and waking it on completion.
#include <tiffany/coro/kernel.hpp>
#include <tiffany/reactor/io_operation.hpp>

#include <cerrno>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/reactor/reactor.hpp>

namespace tiffany {

IoOperation::~IoOperation() {
  if (in_flight_) reactor_->cancel(*this);
}

bool IoOperation::await_ready() const noexcept { return detail::Kernel::current().cancel_pending(); }

void IoOperation::await_suspend(std::coroutine_handle<> caller) {
  scheduler_ = &Scheduler::current();
  reactor_ = &Reactor::current();
  task_ = owner_ = detail::Kernel(*scheduler_).current_task();
  reactor_->start(*this);
  in_flight_ = true;
  started_ = true;
  detail::Kernel(*scheduler_).block_current(caller, this);
}

IoResult IoOperation::await_resume() const {
  // Why: an operation that completed despite a cancel (an accepted fd, bytes
  // received) is delivered, not lost; the cancellation stays pending for the
  // next suspension point.
  if (!started_ || result_ == -ECANCELED) detail::Kernel::current().throw_if_canceled();
  return IoResult{result_};
}

void IoOperation::cancel_wait(detail::TaskRecord&) noexcept {
  // Why: the buffer belongs to the parked frame; the task may only resume
  // once the kernel has posted the (now -ECANCELED) completion.
  if (in_flight_) reactor_->cancel_async(*this);
}

void IoOperation::complete_canceled() noexcept {
  result_ = -ECANCELED;
  in_flight_ = false;
  if (owner_ != nullptr) detail::Kernel(*scheduler_).wake(*owner_);
}

void IoOperation::complete(int result) noexcept {
  in_flight_ = false;
  result_ = result;
  if (task_ != nullptr) {
    detail::Kernel(*scheduler_).wake(*task_);
  } else if (callback_ != nullptr) {
    callback_(*this, callback_context_);  // may destroy *this: nothing after it
  } else {
    buffer_.reset();  // orphaned: nobody will read these bytes
  }
}

void IoOperation::start_detached(Callback callback, void* context) {
  callback_ = callback;
  callback_context_ = context;
  reactor_ = &Reactor::current();
  reactor_->start(*this);
  in_flight_ = true;
  started_ = true;
}

void IoOperation::lend_buffer(ReadLease buffer) noexcept {
  buffer_ = std::move(buffer);
  request_.buffer = buffer_.data();
  request_.length = kReadBufferSize;
}

ReadLease IoOperation::take_buffer() noexcept {
  if (result_ > 0) {
    buffer_.set_size(static_cast<std::size_t>(result_));
    return std::move(buffer_);
  }
  buffer_.reset();
  return {};
}

}  // namespace tiffany

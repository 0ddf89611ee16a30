// CancelableWait: how a blocked task is pulled off whatever it waits on.
#pragma once

namespace tiffany {

namespace detail {
class TaskRecord;
}  // namespace detail

/// Implemented by awaitables that park a task (Sleep, Join, futures, I/O).
/// When the task is canceled, the scheduler calls cancel_wait on the thread
/// of the task: the awaitable undoes its registration and wakes the task,
/// at once or (for I/O) once the kernel has let go of the operation.
class CancelableWait {
 public:
  virtual void cancel_wait(detail::TaskRecord& task) noexcept = 0;

 protected:
  ~CancelableWait() = default;
};

}  // namespace tiffany

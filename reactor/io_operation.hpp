// IoOperation: the base of every reactor awaitable (ReadWait, Recv, Send, ...).
#pragma once

#include <sys/socket.h>

#include <coroutine>
#include <cstddef>
#include <cstdint>

#include "coro/cancelable_wait.hpp"
#include "reactor/io_result.hpp"

namespace tiffany {

class Reactor;
class Scheduler;
class TaskRecord;

enum class IoKind : std::uint8_t { poll, recv, send, accept, connect };

/// A backend-neutral description of one operation.
struct IoRequest {
  IoKind kind;
  int fd;
  void* buffer = nullptr;               // recv/send
  std::size_t length = 0;               // recv/send
  int flags = 0;                        // MSG_* for recv/send
  std::uint32_t poll_mask = 0;          // POLLIN/POLLOUT for poll
  sockaddr* address = nullptr;          // accept: peer address out (optional); connect: target
  socklen_t* address_length = nullptr;  // accept only
  socklen_t connect_length = 0;         // connect only
};

/// One operation a task parks on. Lives in the awaiting coroutine's frame and
/// is its own completion record, so the hot path allocates nothing.
///
/// Lifetime: if the frame is destroyed while the operation is in flight, the
/// destructor cancels it and waits for the kernel to let go of it, so a late
/// completion can never touch freed memory. If the task is canceled while
/// waiting, the operation is canceled (IORING_OP_ASYNC_CANCEL) and the task
/// wakes, with TaskCanceled, once the kernel has answered.
class IoOperation : private CancelableWait {
 public:
  explicit IoOperation(const IoRequest& request) noexcept : request_(request) {}
  IoOperation(const IoOperation&) = delete;
  IoOperation& operator=(const IoOperation&) = delete;

  bool await_ready() const noexcept;
  void await_suspend(std::coroutine_handle<> caller);
  IoResult await_resume() const;

  // ---- the reactor's side ----
  const IoRequest& request() const noexcept { return request_; }
  bool in_flight() const noexcept { return in_flight_; }
  /// Records the kernel's answer and wakes the parked task (unless orphaned).
  void complete(int result) noexcept;
  /// Detaches the operation from its task: its completion will wake nobody.
  void orphan() noexcept { task_ = nullptr; }
  /// After a synchronous cancel of a still-wanted operation: report it
  /// canceled to its task (which orphan() detached) and wake it.
  void complete_canceled() noexcept;

 protected:
  ~IoOperation();  // only the awaitables built on it (Recv, Send, ...) are destroyed

 private:
  void cancel_wait(TaskRecord& task) noexcept override;

  IoRequest request_;
  Reactor* reactor_ = nullptr;
  Scheduler* scheduler_ = nullptr;
  TaskRecord* task_ = nullptr;
  TaskRecord* owner_ = nullptr;  // the parked task, kept through orphan()
  int result_ = 0;
  bool in_flight_ = false;
  bool started_ = false;  // false: canceled before it was submitted
};

}  // namespace tiffany

// IoOperation: the base of every reactor awaitable (ReadWait, Recv, Send, ...).
#pragma once

#include <sys/socket.h>

#include <coroutine>
#include <cstddef>
#include <cstdint>

#include <tiffany/coro/cancelable_wait.hpp>
#include <tiffany/reactor/io_result.hpp>
#include <tiffany/reactor/read_lease.hpp>

namespace tiffany {

class Reactor;
class Scheduler;
namespace detail {
class TaskRecord;
}  // namespace detail

/// recv_pooled: a receive whose buffer the reactor lends when bytes arrive
/// (see RecvPooled), so a connection waiting for input holds none.
/// send_message: sendmsg(2), `buffer` pointing at the msghdr (see SendMessage).
enum class IoKind : std::uint8_t { poll, recv, recv_pooled, send, accept, connect, send_message };

/// A backend-neutral description of one operation.
struct IoRequest {
  IoKind kind;
  /// recv, recv_pooled: no bytes are expected yet (the peer has yet to read
  /// our last answer), so wait for readiness before trying: the kernel skips
  /// a receive that would fail (io_uring: IORING_RECVSEND_POLL_FIRST; epoll
  /// ignores it). Bytes already there are still received.
  bool poll_first = false;
  int fd;
  void* buffer = nullptr;               // recv/send; send_message: its msghdr
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

  /// What runs when a detached operation completes: on the reactor's thread,
  /// from its poll, with the result in `op.result()`. It may destroy `op`.
  using Callback = void (*)(IoOperation& op, void* context) noexcept;
  /// Starts the operation with no task parked on it. Cancel it with
  /// Reactor::cancel_async (the callback then sees -ECANCELED or a result
  /// that won the race); destroying it while in flight cancels it silently.
  void start_detached(Callback callback, void* context);
  IoResult result() const noexcept { return IoResult{result_}; }
  /// recv_pooled, once completed: the buffer holding the bytes (none after
  /// an error); size() is the byte count.
  ReadLease take_buffer() noexcept;

  // ---- the reactor's side ----
  const IoRequest& request() const noexcept { return request_; }
  bool in_flight() const noexcept { return in_flight_; }
  /// Records the kernel's answer and wakes the parked task (or runs the
  /// detached callback), unless orphaned.
  void complete(int result) noexcept;
  /// Detaches the operation from its task: its completion will wake nobody.
  void orphan() noexcept {
    task_ = nullptr;
    callback_ = nullptr;
  }
  /// recv_pooled: the reactor lends the buffer the bytes go into (it also
  /// becomes request().buffer). Released by take_buffer()'s lease, or here
  /// if nobody takes it.
  void lend_buffer(ReadLease buffer) noexcept;
  bool has_buffer() const noexcept { return buffer_.holds_buffer(); }
  /// recv_pooled: gives an unused lent buffer back before a retry.
  void return_buffer() noexcept { buffer_.reset(); }
  /// After a synchronous cancel of a still-wanted operation: report it
  /// canceled to its task (which orphan() detached) and wake it.
  void complete_canceled() noexcept;

 protected:
  ~IoOperation();  // only the awaitables built on it (Recv, Send, ...) are destroyed

 private:
  void cancel_wait(detail::TaskRecord& task) noexcept override;

  IoRequest request_;
  ReadLease buffer_;  // recv_pooled only
  Callback callback_ = nullptr;
  void* callback_context_ = nullptr;
  Reactor* reactor_ = nullptr;
  Scheduler* scheduler_ = nullptr;
  detail::TaskRecord* task_ = nullptr;
  detail::TaskRecord* owner_ = nullptr;  // the parked task, kept through orphan()
  int result_ = 0;
  bool in_flight_ = false;
  bool started_ = false;  // false: canceled before it was submitted
};

}  // namespace tiffany

// ClientWatch: cancels an HTTP/1.1 connection's task when its client hangs up while a handler waits.
#pragma once

#include <memory>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>

namespace tiffany::http {

/// While a handler that asked for it (ClientAbortPolicy) waits and the
/// request has been read whole, a small task polls the connection's socket
/// for the peer's FIN or RST (HangupWait: bytes of a pipelined request do
/// not wake it). When one comes, gone() turns true and the connection's task
/// is canceled: the handler sees TaskCanceled where it waits (an upstream's
/// response head, say) and unwinds, closing what it held.
///
/// Why a task of its own and only for such handlers: the connection's task
/// is inside the handler and cannot wait on the socket too; and a poll per
/// request (an epoll_ctl on the epoll backend) is a cost the hot path of
/// other handlers must not pay.
///
/// Per connection state, reused; start() and stop() on the connection's task.
class ClientWatch {
 public:
  ClientWatch() = default;
  ClientWatch(const ClientWatch&) = delete;
  ClientWatch& operator=(const ClientWatch&) = delete;
  /// Why no cancel here: stop() always ran unless the connection's frame is
  /// being destroyed with its scheduler, when cancelling would reach into
  /// frames already gone; disarmed, a watcher left running cancels nobody.
  ~ClientWatch() {
    if (state_ != nullptr) state_->armed = false;
  }

  /// Starts watching `socket` on behalf of task `owner` (the connection's).
  /// Clears gone() of an earlier request.
  void start(int socket, TaskId owner);
  /// Stops watching; gone() keeps its answer until the next start() or
  /// clear(). The watcher's poll is canceled here (on epoll at once, so the
  /// connection may read the socket again right after).
  void stop() noexcept;
  /// Forgets gone(), for the next request.
  void clear() noexcept {
    stop();
    state_.reset();
  }
  bool watching() const noexcept { return state_ != nullptr && state_->armed; }
  /// True when the client hung up while watched (and the owner was canceled).
  bool gone() const noexcept { return state_ != nullptr && state_->gone; }

 private:
  struct State {
    TaskId owner = 0;
    bool armed = true;
    bool gone = false;
  };
  static Task<void> watch(std::shared_ptr<State> state, int socket);

  std::shared_ptr<State> state_;
  JoinHandle<void> watcher_;
};

}  // namespace tiffany::http

// EpollReactor: the fallback backend for hosts where io_uring is forbidden.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tiffany/reactor/reactor.hpp>
#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany {

/// Readiness-based Reactor: an operation is tried at once with a
/// non-blocking system call; if it would block, the task parks until epoll
/// reports the fd ready and the call is retried. Either way the result is
/// delivered at the next poll, as with io_uring, so tasks always suspend and
/// the scheduler stays fair. Same awaitables, same results. Listening and
/// connecting sockets are switched to O_NONBLOCK (accept and connect have no
/// per-call flag), so nothing it does can block the worker.
class EpollReactor final : public Reactor {
 public:
  /// Throws std::system_error if epoll or eventfd cannot be created.
  EpollReactor();
  ~EpollReactor() override;

  void start(IoOperation& op) override;
  void cancel(IoOperation& op) noexcept override;
  void cancel_async(IoOperation& op) noexcept override;
  void poll(std::optional<std::chrono::nanoseconds> timeout) override;
  bool has_pending() const noexcept override { return parked_ > 0 || !done_.empty(); }
  void wake() noexcept override;
  std::string describe() const override { return "epoll"; }

 private:
  struct Interest {
    IoOperation* reader = nullptr;  // recv, accept, ReadWait, HangupWait, a splice from the socket
    IoOperation* writer = nullptr;  // send, connect, WriteWait, a splice into the socket
    std::uint32_t registered = 0;   // events epoll currently watches for
    bool known_to_epoll = false;
  };

  /// Tries `op`'s system call; true with `result` when it finished (or failed
  /// for good), false when it would block.
  static bool attempt(IoOperation& op, bool retry, int& result) noexcept;
  static bool wants_write(const IoRequest& request) noexcept;
  /// The epoll events a reader waits for: EPOLLIN, or a poll's own (IN, RDHUP).
  static std::uint32_t reader_events(const IoRequest& request) noexcept;
  void park(IoOperation& op);
  void unpark(IoOperation& op) noexcept;
  void update_interest(int fd, Interest& interest) noexcept;
  void on_ready(int fd, std::uint32_t events);
  void finish(IoOperation& op, int result);

  UniqueFd epoll_fd_;
  UniqueFd wake_fd_;
  std::unordered_map<int, Interest> interests_;
  std::vector<std::pair<IoOperation*, int>> done_;  // finished, delivered at the next poll
  std::vector<std::pair<IoOperation*, int>> delivering_;
  std::size_t parked_ = 0;
};

}  // namespace tiffany

// TimedPeerStream: a ByteStream fake whose reads arrive from a script on the scheduler's (manual) clock.
#pragma once

#include <algorithm>
#include <chrono>
#include <coroutine>
#include <cstddef>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <tiffany/coro/kernel.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/net/byte_stream.hpp>

namespace tiffany::testing {

/// Waits like a read whose bytes are already on their way: a cancel wakes it
/// early, and the bytes are delivered all the same (as io_uring or epoll
/// deliver a receive that completed in the instant it was canceled).
class InFlightWait final : public CancelableWait {
 public:
  explicit InFlightWait(std::chrono::milliseconds after) : after_(after) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> caller) {
    Scheduler& scheduler = Scheduler::current();
    detail::Kernel(scheduler).sleep_current_until(scheduler.now() + after_, caller, this);
  }
  void await_resume() const noexcept {}
  void cancel_wait(detail::TaskRecord& task) noexcept override { detail::Kernel::current().cancel_sleep(task); }

 private:
  std::chrono::milliseconds after_;
};

/// A peer on a script: each arrival comes `after` the read that asks for it
/// began. Empty `bytes` is the peer's close (EOF), a negative `error` a failed
/// read; what a read has no room for comes at once to the next read; after the
/// script the peer falls silent (a read waits 24 h, then sees EOF). An
/// `in_flight` arrival is delivered even if its read is canceled while it waits.
/// Writes are recorded in `written`, or, with `writes_hang`, never end (a peer
/// that stopped reading). Single-threaded, on the scheduler running the reads.
class TimedPeerStream final : public ByteStream {
 public:
  struct Arrival {
    std::chrono::milliseconds after;
    std::string bytes;
    int error = 0;           // a negative errno: the read fails with it
    bool in_flight = false;  // delivered even if the read is canceled first
  };
  /// `count` bytes of filler, `after` from the read.
  static Arrival filler(std::chrono::milliseconds after, std::size_t count) {
    return Arrival{after, std::string(count, 'x')};
  }

  explicit TimedPeerStream(std::vector<Arrival> arrivals, bool writes_hang = false)
      : arrivals_(std::make_move_iterator(arrivals.begin()), std::make_move_iterator(arrivals.end())),
        writes_hang_(writes_hang) {}

  Task<IoResult> read(char* data, std::size_t size) override {
    ++reads;
    read_at.push_back(Scheduler::current().now());
    written_at_read.push_back(written);
    if (arrivals_.empty()) {
      co_await Sleep{std::chrono::hours(24)};  // silence
      co_return IoResult{0};
    }
    Arrival next = std::move(arrivals_.front());
    arrivals_.pop_front();
    if (next.in_flight) {
      co_await InFlightWait{next.after};
    } else {
      co_await Sleep{next.after};
    }
    if (next.error != 0) co_return IoResult{next.error};
    const std::size_t n = std::min(size, next.bytes.size());
    next.bytes.copy(data, n);
    if (n < next.bytes.size()) arrivals_.push_front(Arrival{std::chrono::milliseconds(0), next.bytes.substr(n)});
    co_return IoResult{static_cast<int>(n)};
  }
  Task<IoResult> write(const char* data, std::size_t size) override {
    if (writes_hang_) co_await Sleep{std::chrono::hours(24)};
    written.append(data, size);
    co_return IoResult{static_cast<int>(size)};
  }
  void finish() noexcept override { finished = true; }

  std::string written;   // every byte written, in order
  bool finished = false; // finish() was called (our side is done)
  int reads = 0;         // reads asked for
  std::vector<Scheduler::Clock::time_point> read_at;  // when each read was asked for
  std::vector<std::string> written_at_read;           // `written` as each read was asked for

 private:
  std::deque<Arrival> arrivals_;
  bool writes_hang_;
};

}  // namespace tiffany::testing

// lingering_close on virtual time: it ends when the peer closes, falls
// silent, has sent for the whole budget or too many bytes, or a drain begins.
#include "server/transport/lingering_close.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <string>
#include <vector>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/syscalls.hpp>

#include "server/transport/connection_tracker.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;

// A peer still sending: each arrival comes `after` the previous read began;
// zero bytes is its close (EOF); after the script it falls silent.
class PeerStream final : public ByteStream {
 public:
  struct Arrival {
    std::chrono::milliseconds after;
    std::size_t bytes;
  };
  explicit PeerStream(std::vector<Arrival> arrivals) : arrivals_(arrivals.begin(), arrivals.end()) {}

  Task<IoResult> read(char* data, std::size_t size) override {
    ++reads;
    if (arrivals_.empty()) {
      co_await Sleep{24h};
      co_return IoResult{0};
    }
    const Arrival next = arrivals_.front();
    arrivals_.pop_front();
    co_await Sleep{next.after};
    const std::size_t n = std::min(size, next.bytes);
    std::fill_n(data, n, 'x');
    co_return IoResult{static_cast<int>(n)};
  }
  Task<IoResult> write(const char*, std::size_t size) override { co_return IoResult{static_cast<int>(size)}; }
  void finish() noexcept override {}

  int reads = 0;

 private:
  std::deque<Arrival> arrivals_;
};

class LingeringCloseTest : public ::testing::Test {
 protected:
  // Lingers on `stream` in a task; returns how long it lingered (virtual time).
  std::chrono::milliseconds linger(PeerStream& stream, ConnectionTracker* tracker = nullptr) {
    auto body = [](PeerStream& s, LingerLimits limits, ConnectionTracker* t) -> Task<void> {
      Deadline deadline = Deadline::unarmed();
      co_await lingering_close(s, deadline, limits, t);
    };
    const auto start = clock_.now();
    auto handle = scheduler_.spawn(body(stream, limits_, tracker));
    scheduler_.run();
    handle.take_result();
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - start);
  }

  ManualClock clock_;
  Scheduler scheduler_{SchedulerOptions{.clock = &clock_}};
  LingerLimits limits_{.total = 5000ms, .read = 2000ms, .bytes = 1024 * 1024};
};

TEST_F(LingeringCloseTest, EndsWhenThePeerCloses) {
  PeerStream stream({{100ms, 1000}, {100ms, 1000}, {100ms, 0}});
  EXPECT_EQ(linger(stream), 300ms);
  EXPECT_EQ(stream.reads, 3);
}

TEST_F(LingeringCloseTest, EndsWhenThePeerFallsSilentForAReadTimeout) {
  PeerStream stream({{100ms, 1000}, {1500ms, 1000}});
  EXPECT_EQ(linger(stream), 100ms + 1500ms + 2000ms);
}

TEST_F(LingeringCloseTest, EndsAtTheTotalHoweverThePeerKeepsSending) {
  std::vector<PeerStream::Arrival> forever(100, PeerStream::Arrival{1000ms, 1});
  PeerStream stream(std::move(forever));
  EXPECT_EQ(linger(stream), 5000ms);
}

TEST_F(LingeringCloseTest, EndsOnceMoreThanTheByteCapIsDropped) {
  limits_.bytes = 40'000;
  std::vector<PeerStream::Arrival> fast(100, PeerStream::Arrival{10ms, 16'000});
  PeerStream stream(std::move(fast));
  EXPECT_EQ(linger(stream), 30ms);  // 48,000 bytes after the third read
  EXPECT_EQ(stream.reads, 3);
}

TEST_F(LingeringCloseTest, AZeroTotalClosesAtOnce) {
  limits_.total = 0ms;
  PeerStream stream({{100ms, 1000}});
  EXPECT_EQ(linger(stream), 0ms);
  EXPECT_EQ(stream.reads, 0);
}

TEST_F(LingeringCloseTest, ADrainCutsItToTheIdleGrace) {
  ConnectionTracker tracker(10);
  auto drain_soon = [](ConnectionTracker& t) -> Task<void> {
    co_await Sleep{300ms};
    t.drain(100ms, [] {});
  };
  auto drainer = scheduler_.spawn(drain_soon(tracker));
  PeerStream silent({});
  EXPECT_EQ(linger(silent, &tracker), 400ms);
  drainer.take_result();
  // Lingering that starts during a drain gets the grace only.
  PeerStream sending(std::vector<PeerStream::Arrival>(100, PeerStream::Arrival{30ms, 1}));
  EXPECT_EQ(linger(sending, &tracker), 100ms);
}

}  // namespace
}  // namespace tiffany

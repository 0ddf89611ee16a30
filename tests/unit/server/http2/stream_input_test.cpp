// StreamInput: an HTTP/2 stream's DATA held for its reader: order, end and failure, the reader
// woken, and the buffer bounded however the reader takes (a piece at a time or all at once).
#include <gtest/gtest.h>

#include <string>

#include <tiffany/coro/scheduler.hpp>

#include "server/http2/stream_input.hpp"

namespace tiffany::http2 {
namespace {

// The reader's side on a scheduler: waits once, then takes up to `max` bytes.
Task<std::string> wait_and_take(StreamInput& input, std::size_t max) {
  const http::BodyStatus status = co_await input.wait();
  if (status != http::BodyStatus::data) co_return "<" + std::to_string(static_cast<int>(status)) + ">";
  std::string out(max, '\0');
  out.resize(input.take(out.data(), max));
  co_return out;
}

TEST(StreamInput, BytesComeInOrderThenTheEnd) {
  Scheduler scheduler;
  StreamInput input;
  auto reader = scheduler.spawn(wait_and_take(input, 100));
  scheduler.run_until_idle();
  EXPECT_FALSE(reader.finished()) << "a reader with nothing held waits";
  input.receive("abc");
  input.receive("def");
  scheduler.run_until_idle();
  EXPECT_EQ(reader.take_result(), "abcdef");
  input.end();
  auto after = scheduler.spawn(wait_and_take(input, 100));
  scheduler.run_until_idle();
  EXPECT_EQ(after.take_result(), "<" + std::to_string(static_cast<int>(http::BodyStatus::end)) + ">");
}

TEST(StreamInput, AFailureWakesTheReaderAndDropsWhatIsHeld) {
  Scheduler scheduler;
  StreamInput input;
  input.receive("held");
  input.fail(http::BodyStatus::too_large);
  EXPECT_EQ(input.held(), 0u);
  input.receive("more");  // after a failure nothing is kept
  auto reader = scheduler.spawn(wait_and_take(input, 100));
  scheduler.run_until_idle();
  EXPECT_EQ(reader.take_result(), "<" + std::to_string(static_cast<int>(http::BodyStatus::too_large)) + ">");
}

TEST(StreamInput, TakeAllGivesEverythingHeldAsOnePiece) {
  StreamInput input;
  input.receive("one ");
  input.receive("two");
  EXPECT_EQ(input.take_all(), "one two");
  EXPECT_EQ(input.held(), 0u);
  EXPECT_EQ(input.received(), 7u);
}

// A reader taking 16 KiB at a time while the client keeps about a window's
// worth unread: the buffer must stay near that, not grow with all that passed.
TEST(StreamInput, APieceAtATimeReaderKeepsTheBufferBounded) {
  StreamInput input;
  const std::string frame(16 * 1024, 'x');
  constexpr std::size_t kWindow = 64 * 1024;
  char piece[16 * 1024];
  std::size_t passed = 0;
  std::size_t largest = 0;
  while (passed < 64u * 1024 * 1024) {
    while (input.held() < kWindow) input.receive(frame);
    passed += input.take(piece, sizeof piece);
    largest = std::max(largest, input.buffered());
  }
  EXPECT_LE(largest, kWindow + 2 * frame.size()) << "the taken front is not dropped";
}

}  // namespace
}  // namespace tiffany::http2

// SocketStream on every backend: gathered writes (sendmsg; pieces arrive whole and in order through partial
// sends, empty pieces are skipped, a closed peer is an error value), and what a caller asks of any stream
// (its socket, readiness, the half-close).
#include <tiffany/net/socket_stream.hpp>

#include <sys/socket.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tiffany/coro/yield.hpp>
#include <tiffany/reactor/recv.hpp>

#include "support/socket_pair.hpp"
#include "unit/reactor/reactor_fixture.hpp"

namespace tiffany {
namespace {

using testing::SocketPair;

std::string patterned(std::size_t size, char seed) {
  std::string text(size, '\0');
  for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>(seed + static_cast<char>(i % 61));
  return text;
}

// Reads until the peer closes.
Task<std::string> read_all(int fd) {
  std::string all;
  std::vector<char> buffer(64 * 1024);
  for (;;) {
    const IoResult got = co_await Recv{fd, buffer.data(), buffer.size()};
    if (!got || got.bytes() == 0) co_return all;
    all.append(buffer.data(), got.bytes());
  }
}

Task<int> gather(UniqueFd& fd, const std::vector<std::string>& texts) {
  std::vector<iovec> pieces;
  for (const std::string& text : texts) pieces.push_back(iovec{const_cast<char*>(text.data()), text.size()});
  SocketStream stream(fd.get());
  const IoResult written = co_await stream.write_gather(pieces);
  fd.reset();  // the reader sees the end
  co_return written.value();
}

using SocketStreamTest = ReactorTest;
INSTANTIATE_TEST_SUITE_P(Backends, SocketStreamTest, all_backends(), backend_name);

TEST_P(SocketStreamTest, GathersPiecesInOrderThroughPartialSends) {
  SocketPair pair;
  int small = 4096;  // a small send buffer: many partial sends, some ending inside a piece
  ASSERT_EQ(::setsockopt(pair.a.get(), SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
  std::vector<std::string> texts = {"HTTP/1.1 200 OK\r\n\r\n", patterned(300 * 1024, 'A'), "", "between",
                                    patterned(70 * 1024 + 3, 'a'), "tail"};
  // More pieces than one sendmsg takes (IOV_MAX, 1024), a few of them empty.
  for (int i = 0; i < 1100; ++i) texts.push_back(patterned(static_cast<std::size_t>(i % 50) * 7, '0'));
  std::string expected;
  for (const std::string& text : texts) expected += text;
  auto received = scheduler().spawn(read_all(pair.b.get()));
  auto written = scheduler().spawn(gather(pair.a, texts));
  scheduler().run();
  EXPECT_EQ(written.take_result(), 0);
  const std::string got = received.take_result();
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

TEST_P(SocketStreamTest, AGatheredWriteToAClosedPeerIsAnErrorValue) {
  SocketPair pair;
  pair.b.reset();
  const std::vector<std::string> texts = {"head", patterned(2048, 'x')};
  auto written = scheduler().spawn(gather(pair.a, texts));
  scheduler().run();
  EXPECT_EQ(written.take_result(), -EPIPE);
}

// A plain stream: not encrypted, its socket named; input is ready only once
// the peer sent some, a wait for it ends when it comes, and a half-close
// ends our direction (the peer reads the end) while the peer's bytes still
// arrive.
TEST_P(SocketStreamTest, SaysItsSocketWaitsForInputAndHalfCloses) {
  SocketPair pair;
  SocketStream stream(pair.a.get());
  const ByteStream& any = stream;
  EXPECT_FALSE(any.encrypted());
  EXPECT_EQ(any.socket(), pair.a.get());
  EXPECT_FALSE(any.has_buffered_input());
  EXPECT_FALSE(any.input_ready());
  std::vector<std::string> order;
  auto server = [&]() -> Task<void> {
    const IoResult waited = co_await stream.wait_readable();
    order.push_back(waited.ok() ? "readable" : "wait failed: " + waited.message());
    order.push_back(any.input_ready() ? "ready" : "not ready");
    stream.shutdown_write();
    std::string received;
    char buffer[16];
    while (received.size() < 8) {  // "ping", and "pong", which the peer sends once it saw our end
      const IoResult got = co_await stream.read(buffer, sizeof buffer);
      if (!got || got.bytes() == 0) break;
      received.append(buffer, got.bytes());
    }
    order.push_back(received);
  };
  auto client = [&]() -> Task<void> {
    for (int i = 0; i < 20; ++i) co_await Yield{};  // the server waits first
    order.push_back("sent");
    ::send(pair.b.get(), "ping", 4, MSG_NOSIGNAL);
    char end = 0;
    const IoResult eof = co_await Recv{pair.b.get(), &end, 1};
    order.push_back(eof && eof.bytes() == 0 ? "end seen" : "no end");
    ::send(pair.b.get(), "pong", 4, MSG_NOSIGNAL);
  };
  (void)scheduler().spawn(server());
  (void)scheduler().spawn(client());
  scheduler().run();
  const std::vector<std::string> expected = {"sent", "readable", "ready", "end seen", "pingpong"};
  EXPECT_EQ(order, expected);
}

}  // namespace
}  // namespace tiffany

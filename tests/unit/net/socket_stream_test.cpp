// SocketStream's gathered writes (sendmsg) on every backend: pieces arrive whole and in order through partial
// sends, empty pieces are skipped, and a closed peer is an error value.
#include <tiffany/net/socket_stream.hpp>

#include <sys/socket.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

}  // namespace
}  // namespace tiffany

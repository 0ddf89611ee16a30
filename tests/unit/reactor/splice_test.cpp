// Splice on every backend: socket to pipe to socket, a wait for an empty socket (in the backend on epoll, by the
// caller after -EAGAIN on io_uring), and 0 at the peer's end.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include <tiffany/coro/syscalls.hpp>
#include <tiffany/coro/yield.hpp>
#include <tiffany/reactor/readiness.hpp>
#include <tiffany/reactor/send.hpp>
#include <tiffany/reactor/splice.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "reactor_fixture.hpp"
#include "support/pipe_ends.hpp"
#include "support/socket_pair.hpp"

namespace tiffany {
namespace {

using testing::Pipe;

void make_nonblocking(int fd) { ASSERT_EQ(::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK), 0); }

using SpliceTest = ReactorTest;
INSTANTIATE_TEST_SUITE_P(Backends, SpliceTest, all_backends(), backend_name);

TEST_P(SpliceTest, BytesGoFromASocketThroughAPipeIntoAnotherSocket) {
  testing::SocketPair in;
  testing::SocketPair out;
  make_nonblocking(in.b.get());
  make_nonblocking(out.a.get());
  Pipe pipe;
  ASSERT_EQ(::send(in.a.get(), "spliced bytes", 13, 0), 13);
  auto relay = [&]() -> Task<std::string> {
    const IoResult filled =
        co_await splice_when_ready(in.b.get(), pipe.write_end.get(), 65536, in.b.get(), Splice::Waits::readable);
    if (!filled) co_return "fill: " + filled.message();
    const IoResult drained =
        co_await splice_when_ready(pipe.read_end.get(), out.a.get(), filled.bytes(), out.a.get(), Splice::Waits::writable);
    if (!drained) co_return "drain: " + drained.message();
    co_return std::to_string(filled.bytes()) + " " + std::to_string(drained.bytes());
  };
  auto moved = scheduler().spawn(relay());
  scheduler().run();
  EXPECT_EQ(moved.take_result(), "13 13");
  char got[32] = {};
  EXPECT_EQ(::recv(out.b.get(), got, sizeof got, MSG_DONTWAIT), 13);
  EXPECT_EQ(std::string(got), "spliced bytes");
}

TEST_P(SpliceTest, ASpliceFromAnEmptySocketEndsOnceBytesArrive) {
  testing::SocketPair in;
  make_nonblocking(in.b.get());
  Pipe pipe;
  std::vector<std::string> order;
  auto reader = [&]() -> Task<void> {
    const IoResult filled =
        co_await splice_when_ready(in.b.get(), pipe.write_end.get(), 65536, in.b.get(), Splice::Waits::readable);
    order.push_back("spliced " + (filled ? std::to_string(filled.bytes()) : filled.message()));
  };
  auto writer = [&]() -> Task<void> {
    co_await Yield{};
    order.push_back("sending");
    co_await Send{in.a.get(), "late", 4};
  };
  auto read = scheduler().spawn(reader());
  auto wrote = scheduler().spawn(writer());
  scheduler().run();
  EXPECT_EQ(order, (std::vector<std::string>{"sending", "spliced 4"}));
}

TEST_P(SpliceTest, ASpliceFromASocketWhosePeerClosedMovesNothing) {
  testing::SocketPair in;
  make_nonblocking(in.b.get());
  Pipe pipe;
  in.a.reset();
  auto reader = [&]() -> Task<IoResult> {
    co_return co_await splice_when_ready(in.b.get(), pipe.write_end.get(), 65536, in.b.get(), Splice::Waits::readable);
  };
  auto read = scheduler().spawn(reader());
  scheduler().run();
  const IoResult result = read.take_result();
  EXPECT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(result.bytes(), 0u);
}

}  // namespace
}  // namespace tiffany

// Http2Connection on virtual time: a stream the client resets while its
// handler runs must leave the connection's books, so the connection still
// goes idle (GOAWAY at the keep-alive timeout) and still answers; and the
// connection's own books on routing.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/net/socket_stream.hpp>
#include <tiffany/reactor/read_lease.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "reactor/engine/reactor_factory.hpp"
#include "server/http/http_protocol.hpp"
#include "server/http2/connection_preface.hpp"

namespace tiffany::http2 {
namespace {

using namespace std::chrono_literals;

class Slow final : public Handler {
 public:
  Task<void> handle(http::Request&, http::Response& response) override {
    co_await Sleep{5s};
    response.body = "slow";
  }
};

// Waits 10 s; canceled, it still takes 5 s to unwind (a cleanup that waits), then counts itself.
class Lingering final : public Handler {
 public:
  explicit Lingering(int& unwound) noexcept : unwound_(unwound) {}
  Task<void> handle(http::Request&, http::Response& response) override {
    try {
      co_await Sleep{10s};
    } catch (const TaskCanceled&) {
      unwinding_ = true;
    }
    if (unwinding_) {
      co_await Sleep{5s};
      ++unwound_;
      throw TaskCanceled();
    }
    response.body = "lingered";
  }

 private:
  int& unwound_;
  bool unwinding_ = false;
};

// Streams request bodies; answers without reading this one.
class Streaming final : public Handler {
 public:
  Task<void> handle(http::Request&, http::Response& response) override {
    response.body = "streamed";
    co_return;
  }
  bool streams_request_body() const noexcept override { return true; }
};

// Declares 10 bytes and streams 5.
class Short final : public Handler {
 public:
  Task<void> handle(http::Request&, http::Response& response) override {
    response.set_content_length(10);
    const http::Delivery sent = co_await response.write("short");
    EXPECT_EQ(sent, http::Delivery::sent);
  }
};

class Quick final : public Handler {
 public:
  Task<void> handle(http::Request&, http::Response& response) override {
    response.body = "quick";
    co_return;
  }
};

std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, std::string_view payload) {
  std::string bytes;
  const auto length = static_cast<std::uint32_t>(payload.size());
  for (int shift : {16, 8, 0}) bytes.push_back(static_cast<char>((length >> shift) & 0xff));
  bytes.push_back(static_cast<char>(type));
  bytes.push_back(static_cast<char>(flags));
  for (int shift : {24, 16, 8, 0}) bytes.push_back(static_cast<char>((stream >> shift) & 0xff));
  bytes.append(payload);
  return bytes;
}

// HEADERS (END_STREAM | END_HEADERS) for GET `path`: HPACK static entries
// for :method GET and :scheme http, literals for :path and :authority.
std::string get(std::uint32_t stream, std::string_view path) {
  std::string block = "\x82\x86";
  block.push_back('\x04');
  block.push_back(static_cast<char>(path.size()));
  block.append(path);
  block.append("\x01\x01t", 3);
  return frame(0x1, 0x5, stream, block);
}

// HEADERS (END_HEADERS) for POST `path` (HPACK static :method POST), then its DATA with END_STREAM.
std::string post(std::uint32_t stream, std::string_view path, std::string_view body) {
  std::string block = "\x83\x86";
  block.push_back('\x04');
  block.push_back(static_cast<char>(path.size()));
  block.append(path);
  block.append("\x01\x01t", 3);
  return frame(0x1, 0x4, stream, block) + frame(0x0, 0x1, stream, body);
}

std::string reset(std::uint32_t stream) { return frame(0x3, 0, stream, std::string("\0\0\0\x08", 4)); }  // CANCEL

// The frames the server sent after its opening three, as "type/stream"
// (RST_STREAM also "/code"): "1/5 0/5 3/7/7" is HEADERS and DATA on 5, then
// RST_STREAM(REFUSED_STREAM) on 7.
std::string frames_of(std::string_view bytes) {
  std::string frames;
  auto number = [&bytes](std::size_t at, std::size_t size) {
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < size; ++i) value = (value << 8) | static_cast<std::uint8_t>(bytes[at + i]);
    return value;
  };
  for (int count = 0; bytes.size() >= 9; ++count) {
    const std::size_t length = number(0, 3);
    if (count >= 3) {
      if (!frames.empty()) frames += ' ';
      frames += std::to_string(static_cast<int>(bytes[3])) + "/" + std::to_string(number(5, 4) & 0x7fffffffU);
      if (bytes[3] == 0x3 && length == 4 && bytes.size() >= 13) frames += "/" + std::to_string(number(9, 4));
    }
    bytes.remove_prefix(std::min(bytes.size(), 9 + length));
  }
  return frames;
}

// The types of the frames the server sent after its opening three (its
// SETTINGS and WINDOW_UPDATE, its ack of ours, in nghttp2's order), in
// order: "1 0 7" is HEADERS, DATA, GOAWAY.
std::string frame_types(std::string_view bytes) {
  std::string types;
  for (int frames = 0; bytes.size() >= 9; ++frames) {
    const std::size_t length = (static_cast<std::uint8_t>(bytes[0]) << 16) | (static_cast<std::uint8_t>(bytes[1]) << 8) |
                               static_cast<std::uint8_t>(bytes[2]);
    if (frames >= 3) {
      if (!types.empty()) types += ' ';
      types += std::to_string(static_cast<int>(bytes[3]));
    }
    bytes.remove_prefix(std::min(bytes.size(), 9 + length));
  }
  return types;
}

class Http2ResetTest : public ::testing::Test {
 protected:
  Http2ResetTest() {
    site_.router.add({"GET"}, "/slow", std::make_shared<Slow>());
    site_.router.add({"GET"}, "/quick", std::make_shared<Quick>());
    site_.router.add({"GET"}, "/short", std::make_shared<Short>());
    site_.router.add({"GET"}, "/linger", std::make_shared<Lingering>(unwound_));
    site_.router.add({"POST"}, "/streamed", std::make_shared<Streaming>());
    site_.router.add({"POST"}, "/whole", std::make_shared<Quick>());
    site_.timeouts.keepalive = 2s;
    site_.http2.enabled = true;
  }

  struct Outcome {
    std::string received;
    std::chrono::milliseconds closed_at{};  // when the client saw the server's EOF
    std::uint64_t lookups = 0;              // the router's, for the whole exchange
  };

  // Sends `input` after the preface, then `later` a second later, stays
  // silent (open) for 60 s, then half-closes; reads everything the server
  // sends until EOF.
  Outcome exchange(std::string input, std::string later = {}) {
    std::vector<std::pair<std::chrono::seconds, std::string>> steps;
    if (!later.empty()) steps.emplace_back(1s, std::move(later));
    return exchange(std::move(input), std::move(steps));
  }

  // Sends `input` after the preface, then each step's bytes once its wait
  // (after the step before) has passed, stays silent for 60 s, then half-closes.
  Outcome exchange(std::string input, std::vector<std::pair<std::chrono::seconds, std::string>> steps) {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    const UniqueFd server_end(fds[0]);
    const UniqueFd client_end(fds[1]);
    std::unique_ptr<Reactor> reactor = make_reactor(BackendChoice::epoll).reactor;
    ManualClock clock;
    Outcome outcome;
    {
      Scheduler scheduler(SchedulerOptions{.poller = reactor.get(), .clock = &clock});
      HttpProtocol protocol(site_);
      const auto start = clock.now();
      auto server = [](int fd, HttpProtocol& serving) -> Task<void> {
        SocketStream stream(fd);
        ReadLease first;
        const IoResult got = co_await stream.read_pooled(first);
        if (got && got.bytes() > 0) {
          Deadline deadline = Deadline::unarmed();
          const std::string peer = "127.0.0.1:1";
          ConnectionContext context{deadline, peer, false, nullptr, true};
          (void)co_await serving.serve(stream, context, std::move(first));
        }
        ::shutdown(fd, SHUT_RDWR);
      };
      auto writer = [](int fd, std::string bytes,
                       std::vector<std::pair<std::chrono::seconds, std::string>> then) -> Task<void> {
        SocketStream stream(fd);
        (void)co_await stream.write(bytes.data(), bytes.size());
        for (const auto& [wait, more] : then) {
          co_await Sleep{wait};
          (void)co_await stream.write(more.data(), more.size());
        }
        co_await Sleep{60s};
        ::shutdown(fd, SHUT_WR);
      };
      auto reader = [](int fd, Outcome& into, ManualClock& time, ManualClock::time_point began) -> Task<void> {
        SocketStream stream(fd);
        char buffer[4096];
        for (;;) {
          const IoResult got = co_await stream.read(buffer, sizeof buffer);
          if (!got || got.bytes() == 0) break;
          into.received.append(buffer, got.bytes());
        }
        into.closed_at = std::chrono::duration_cast<std::chrono::milliseconds>(time.now() - began);
      };
      auto served = scheduler.spawn(server(server_end.get(), protocol));
      auto wrote = scheduler.spawn(writer(client_end.get(), std::string(kClientPreface) + frame(0x4, 0, 0, "") + input,
                                              std::move(steps)));
      auto read = scheduler.spawn(reader(client_end.get(), outcome, clock, start));
      scheduler.run();
      served.take_result();
      wrote.take_result();
      read.take_result();
      outcome.lookups = protocol.site().router.lookups();
    }
    return outcome;
  }

  http::HttpSite site_;
  int unwound_ = 0;  // Lingering handlers that unwound
};

TEST_F(Http2ResetTest, AConnectionWhoseRunningStreamWasResetGoesIdle) {
  // The handler sleeps 5 s; the reset comes a second into it.
  const Outcome outcome = exchange(get(1, "/slow"), reset(1));
  // Nothing for the reset stream, then GOAWAY at the keep-alive timeout after the reset.
  EXPECT_EQ(frame_types(outcome.received), "7");
  EXPECT_EQ(outcome.closed_at, 3000ms);
}

TEST_F(Http2ResetTest, AResetBeforeTheHandlerStartsIsForgottenToo) {
  // The reset arrives in the same read as the request: the stream's task is
  // canceled before it ever runs.
  const Outcome outcome = exchange(get(1, "/slow") + reset(1) + get(3, "/quick"));
  EXPECT_EQ(frame_types(outcome.received), "1 0 7");  // /quick's HEADERS and DATA, then GOAWAY
  EXPECT_NE(outcome.received.find("quick"), std::string::npos);
  EXPECT_EQ(outcome.closed_at, 2000ms);
}

// Rapid Reset: the tasks of streams the client reset count toward
// max_concurrent_streams until they have unwound, so resetting streams does
// not buy a client more concurrent handlers.
TEST_F(Http2ResetTest, StreamsResetWhileTheirTasksUnwindCountTowardTheConcurrencyLimit) {
  site_.http2.max_concurrent_streams = 2;
  site_.timeouts.keepalive = 30s;
  // 0 s: two handlers start. 1 s: both reset (they unwind until 6 s), and
  // stream 5 is refused. 7 s: they have unwound, and stream 7 is answered.
  const Outcome outcome = exchange(get(1, "/linger") + get(3, "/linger"),
                                   {{1s, reset(1) + reset(3) + get(5, "/quick")}, {6s, get(7, "/quick")}});
  EXPECT_EQ(frames_of(outcome.received), "3/5/7 1/7 0/7 7/0");  // REFUSED_STREAM (7) on 5; 7 answered; GOAWAY
  EXPECT_EQ(unwound_, 2);
}

using Http2RoutingTest = Http2ResetTest;

// The connection routes a request with a body at its header block (does its
// handler stream the body?); the stream's task uses that, not a second lookup.
TEST_F(Http2RoutingTest, ARequestWithABodyIsRoutedOnce) {
  const Outcome outcome = exchange(post(1, "/streamed", "abc") + post(3, "/whole", "abc") + get(5, "/quick"));
  EXPECT_NE(outcome.received.find("streamed"), std::string::npos);
  EXPECT_EQ(outcome.lookups, 3u);  // one a request
}

TEST_F(Http2ResetTest, AStreamedResponseShorterThanItsDeclaredLengthIsResetNotEnded) {
  // END_STREAM would end a body its content-length says is 10 bytes after 5
  // (a malformed response); RST_STREAM(INTERNAL_ERROR) says the server broke
  // it, as HTTP/1.1 closes its connection. The connection goes on.
  // (Its HEADERS and DATA may go first, or be dropped with the stream: here
  // the reset comes before the connection writes them.)
  const Outcome outcome = exchange(get(1, "/short"), get(3, "/quick"));
  const std::string frames = frames_of(outcome.received);
  const std::string_view tail = "3/1/2 1/3 0/3 7/0";
  ASSERT_GE(frames.size(), tail.size()) << frames;
  EXPECT_EQ(frames.substr(frames.size() - tail.size()), tail) << frames;
  EXPECT_EQ(frames.find("3/1/2"), frames.rfind("3/1/2")) << frames;
}

}  // namespace
}  // namespace tiffany::http2

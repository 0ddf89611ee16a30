// Http2Connection on virtual time: a stream the client resets while its
// handler runs must leave the connection's books, so the connection still
// goes idle (GOAWAY at the keep-alive timeout) and still answers.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/net/socket_stream.hpp>
#include <tiffany/reactor/read_lease.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "reactor/internal/reactor_factory.hpp"
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

std::string reset(std::uint32_t stream) { return frame(0x3, 0, stream, std::string("\0\0\0\x08", 4)); }  // CANCEL

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
    site_.timeouts.keepalive = 2s;
    site_.http2.enabled = true;
  }

  struct Outcome {
    std::string received;
    std::chrono::milliseconds closed_at{};  // when the client saw the server's EOF
  };

  // Sends `input` after the preface, then `later` a second later, stays
  // silent (open) for 60 s, then half-closes; reads everything the server
  // sends until EOF.
  Outcome exchange(std::string input, std::string later = {}) {
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
          ConnectionContext context{deadline, peer, false, nullptr, fd, true};
          (void)co_await serving.serve(stream, context, std::move(first));
        }
        ::shutdown(fd, SHUT_RDWR);
      };
      auto writer = [](int fd, std::string bytes, std::string then) -> Task<void> {
        SocketStream stream(fd);
        (void)co_await stream.write(bytes.data(), bytes.size());
        co_await Sleep{1s};
        if (!then.empty()) (void)co_await stream.write(then.data(), then.size());
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
                                              std::move(later)));
      auto read = scheduler.spawn(reader(client_end.get(), outcome, clock, start));
      scheduler.run();
      served.take_result();
      wrote.take_result();
      read.take_result();
    }
    return outcome;
  }

  http::HttpSite site_;
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

}  // namespace
}  // namespace tiffany::http2

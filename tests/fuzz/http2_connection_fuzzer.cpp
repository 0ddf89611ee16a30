// libFuzzer target: the HTTP/2 glue (Http2Connection, Http2Stream, HttpProtocol's
// h2c entry) served a client byte stream over a socketpair; looks for crashes, leaks, UB, hangs.
//
// The input is what the client sends after the 24-byte preface (the fuzzer
// writes the preface itself; an input that already begins with it, like
// h2o's corpus, is sent as it is). nghttp2 parses; what this covers is ours:
// the callbacks that build requests, the limits, the stream tasks (routing,
// handlers that answer, echo, stream, throw or sleep, read a body as it
// arrives, or run a WebSocket opened by extended CONNECT), the watcher, resets,
// timeouts and the connection's end with streams still running.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/http/websocket.hpp>
#include <tiffany/http/request.hpp>
#include <tiffany/http/response.hpp>
#include <tiffany/net/socket_stream.hpp>
#include <tiffany/reactor/read_lease.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "reactor/engine/reactor_factory.hpp"
#include "server/http/http_protocol.hpp"
#include "server/http/http_site.hpp"
#include "server/http2/connection_preface.hpp"
#include "server/log/error_log.hpp"

namespace {

using namespace std::chrono_literals;
using tiffany::Task;
using tiffany::http::Request;
using tiffany::http::Response;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "http2_connection_fuzzer: %s\n", what);
  std::abort();
}

class Text final : public tiffany::Handler {
 public:
  Task<void> handle(Request&, Response& response) override {
    response.body = "Hello, World!";
    co_return;
  }
};

class Echo final : public tiffany::Handler {
 public:
  Task<void> handle(Request& request, Response& response) override {
    response.body = request.body;
    co_return;
  }
};

// Several awaited pieces: back-pressure, and writes after a reset.
class Pieces final : public tiffany::Handler {
 public:
  Task<void> handle(Request& request, Response& response) override {
    const std::string piece(request.body.empty() ? 5000 : request.body.size(), 'x');
    for (int i = 0; i < 4; ++i) {
      const tiffany::http::Delivery written = co_await response.write(piece);
      if (written == tiffany::http::Delivery::closed) break;
    }
  }
};

class Throws final : public tiffany::Handler {
 public:
  Task<void> handle(Request&, Response&) override {
    throw std::runtime_error("http2_connection_fuzzer: thrown on purpose");
    co_return;
  }
};

// Sleeps on the scheduler (virtual time: instant), so resets, new streams
// and the connection's end arrive while it runs.
class Sleeps final : public tiffany::Handler {
 public:
  Task<void> handle(Request&, Response& response) override {
    co_await tiffany::Sleep{5ms};
    response.body = "slept";
  }
};

// Reads its body as it arrives (a streamed body: the task starts with the
// header block) and answers how much came.
class Upload final : public tiffany::Handler {
 public:
  bool streams_request_body() const noexcept override { return true; }
  Task<void> handle(Request& request, Response& response) override {
    std::size_t total = 0;
    for (;;) {
      const tiffany::http::BodyChunk chunk = co_await request.body_reader().read();
      if (!chunk) break;
      total += chunk.bytes.size();
    }
    response.body = std::to_string(total);
  }
};

// A WebSocket by extended CONNECT (RFC 8441), echoing; short timers, so a
// silent client is pinged, then dropped, within the fuzzer's second.
class WebSocketEcho final : public tiffany::Handler {
 public:
  Task<void> handle(Request& request, Response& response) override {
    tiffany::http::WebSocketOptions options;
    options.max_message_bytes = 64 * 1024;
    options.ping_interval = 20ms;
    options.pong_timeout = 20ms;
    options.close_timeout = 20ms;
    tiffany::http::WebSocket* socket = co_await tiffany::http::accept_websocket(request, response, options);
    if (socket == nullptr) co_return;
    for (;;) {
      std::optional<tiffany::http::WebSocketMessage> message = co_await socket->receive();
      if (!message) break;
      const tiffany::http::Delivery sent = co_await socket->send(message->data, message->text);
      if (sent == tiffany::http::Delivery::closed) break;
    }
  }
};

const tiffany::http::HttpSite& site() {
  static const tiffany::http::HttpSite made = [] {
    tiffany::http::HttpSite s;
    s.router.add({"GET", "HEAD"}, "/", std::make_shared<Text>());
    s.router.add({}, "/echo", std::make_shared<Echo>());
    s.router.add({"GET", "POST"}, "/stream", std::make_shared<Pieces>());
    s.router.add({}, "/throw", std::make_shared<Throws>());
    s.router.add({"GET"}, "/sleep", std::make_shared<Sleeps>());
    s.router.add({"GET"}, "/users/:id", std::make_shared<Text>());
    s.router.add({"POST", "PUT"}, "/upload", std::make_shared<Upload>());
    s.router.add({"GET"}, "/ws", std::make_shared<WebSocketEcho>());
    // Small limits and short timeouts, so inputs reach the limit paths.
    s.limits.max_body_bytes = 64 * 1024;
    s.limits.max_header_count = 32;
    s.limits.max_uri_bytes = 512;
    s.timeouts = tiffany::http::HttpTimeouts{50ms, 50ms, 100ms, 100ms, 20ms, 200ms, 50ms, 20ms};
    s.http2.enabled = true;
    s.http2.max_concurrent_streams = 8;
    s.http2.initial_window_size = 16 * 1024;
    s.http2.max_header_list_size = 4096;
    return s;
  }();
  return made;
}

// The client's sending side: the preface (unless the input carries it),
// the input, then a half-close: at once for an input of odd length, else
// after a second of (virtual) silence, so the server's timeouts, its idle
// GOAWAY and handlers that finish are reached as well as an early EOF.
// By then the server must have closed: every stage's timeout, the handler's
// and the idle one together are well under a second, so a connection still
// open holds a stream (or a task) it lost track of.
Task<void> client_writes(int fd, std::string_view input, const bool& server_done) {
  tiffany::SocketStream stream(fd);
  if (tiffany::http2::match_preface(input) != tiffany::http2::PrefaceMatch::complete) {
    const std::string_view preface = tiffany::http2::kClientPreface;
    (void)co_await stream.write(preface.data(), preface.size());
  }
  if (!input.empty()) (void)co_await stream.write(input.data(), input.size());
  if (input.size() % 2 == 0) {
    co_await tiffany::Sleep{1s};
    if (!server_done) fail("the server still serves a client silent for a second (a stream or task never ends)");
  }
  ::shutdown(fd, SHUT_WR);
}

// The client's reading side: everything the server sends, discarded, until
// EOF, so the server never waits on a full socket.
Task<void> client_reads(int fd) {
  tiffany::SocketStream stream(fd);
  // Why a dump: TIFFANY_H2FUZZ_DUMP=FILE keeps what the server sent, to
  // check by hand that an input reaches the handlers.
  const char* dump_path = std::getenv("TIFFANY_H2FUZZ_DUMP");
  std::FILE* dump = dump_path != nullptr ? std::fopen(dump_path, "wb") : nullptr;
  char sink[16 * 1024];
  for (;;) {
    const tiffany::IoResult got = co_await stream.read(sink, sizeof sink);
    if (!got || got.bytes() == 0) break;
    if (dump != nullptr) std::fwrite(sink, 1, got.bytes(), dump);
  }
  if (dump != nullptr) std::fclose(dump);
}

// The server: the connection's first burst, then HttpProtocol (h2c by the
// preface), as PlainTransport serves it; then closes its end.
Task<void> server(int fd, tiffany::HttpProtocol& protocol, bool& done) {
  tiffany::SocketStream stream(fd);
  tiffany::ReadLease first;
  const tiffany::IoResult got = co_await stream.read_pooled(first);
  if (got && got.bytes() > 0) {
    tiffany::Deadline deadline = tiffany::Deadline::unarmed();
    const std::string peer = "127.0.0.1:1";
    tiffany::ConnectionContext context{deadline, peer, false, nullptr, true};
    (void)co_await protocol.serve(stream, context, std::move(first));
  }
  // Why: the client reads until EOF; a connection that ended leaves it none otherwise.
  ::shutdown(fd, SHUT_RDWR);
  done = true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Why /dev/null at debug: the logging paths run (their formatting too) without filling the terminal.
  tiffany::error_log().reset(tiffany::UniqueFd(::open("/dev/null", O_WRONLY | O_CLOEXEC)), tiffany::LogLevel::debug);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) fail("socketpair failed");
  const tiffany::UniqueFd server_end(fds[0]);
  const tiffany::UniqueFd client_end(fds[1]);
  {
    // Why epoll: io_uring's ring set-up per input costs more than the input,
    // and CI containers may forbid it; the glue above the reactor is the same.
    std::unique_ptr<tiffany::Reactor> reactor = tiffany::make_reactor(tiffany::BackendChoice::epoll).reactor;
    // Why virtual time: sleeps and timeouts pass at once, and an input's run
    // is the same every time (no wall-clock races).
    tiffany::ManualClock clock;
    tiffany::Scheduler scheduler(tiffany::SchedulerOptions{.poller = reactor.get(), .clock = &clock});
    tiffany::HttpProtocol protocol(site());
    bool server_done = false;
    auto served = scheduler.spawn(server(server_end.get(), protocol, server_done));
    auto sent = scheduler.spawn(client_writes(client_end.get(), input, server_done));
    auto received = scheduler.spawn(client_reads(client_end.get()));
    scheduler.run();
    served.take_result();
    sent.take_result();
    received.take_result();
  }
  return 0;
}

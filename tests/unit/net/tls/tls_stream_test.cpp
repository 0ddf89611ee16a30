// TlsStream over a socketpair against an OpenSSL client driven by hand: the
// client's records reach the server one byte at a time and split at every
// position, large transfers go through partial sends, and bad peers only fail
// their own handshake. Runs under ASan in CI.
#include "net/engine/tls/tls_stream.hpp"

#include <sys/ioctl.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <tiffany/coro/syscalls.hpp>
#include <tiffany/reactor/readiness.hpp>
#include <tiffany/reactor/recv_pooled.hpp>

#include "reactor/engine/spare_read_buffers.hpp"
#include "server/echo/echo_protocol.hpp"
#include "server/transport/serve_stream.hpp"
#include "server/transport/tls/tls_context.hpp"
#include "support/socket_pair.hpp"
#include "support/test_certificate.hpp"
#include "unit/reactor/uring_fixture.hpp"

namespace tiffany::tls {
namespace {

// How the client's output reaches the server's socket.
struct Split {
  enum class Mode { whole, bytewise, at };
  Mode mode = Mode::whole;
  std::size_t position = 0;  // Mode::at: every flight goes as [0, position) and the rest
};

std::size_t unread_bytes(int fd) {
  int n = 0;
  return ::ioctl(fd, FIONREAD, &n) == 0 ? static_cast<std::size_t>(n) : 0;
}

// An OpenSSL client on memory BIOs. Whatever it writes is delivered to the
// server's socket in the pieces `split` asks for; in the split modes each
// piece waits until the server has taken the previous one, so the server
// really sees it alone.
class ScriptedClient {
 public:
  ScriptedClient(SSL_CTX* ctx, UniqueFd fd, int server_fd, Split split, const char* host = "localhost")
      : ssl_(SSL_new(ctx)), fd_(std::move(fd)), server_fd_(server_fd), split_(split) {
    BIO* in = BIO_new(BIO_s_mem());
    BIO* out = BIO_new(BIO_s_mem());
    in_ = in;
    out_ = out;
    SSL_set_bio(ssl_.get(), in, out);
    SSL_set_connect_state(ssl_.get());
    SSL_set_tlsext_host_name(ssl_.get(), host);
    SSL_set1_host(ssl_.get(), host);
    static const unsigned char kAlpn[] = "\x08http/1.1";
    SSL_set_alpn_protos(ssl_.get(), kAlpn, sizeof kAlpn - 1);
  }

  Task<bool> handshake() {
    for (;;) {
      ERR_clear_error();
      const int outcome = SSL_do_handshake(ssl_.get());
      const int error = SSL_get_error(ssl_.get(), outcome);
      co_await deliver();
      if (outcome == 1) co_return true;
      if (error != SSL_ERROR_WANT_READ) co_return false;
      const bool more = co_await pull();
      if (!more) co_return false;
    }
  }

  Task<void> send(const std::string& data) {
    std::size_t written = 0;
    while (written < data.size()) {
      const int n = SSL_write(ssl_.get(), data.data() + written, static_cast<int>(data.size() - written));
      EXPECT_GT(n, 0);
      if (n <= 0) co_return;
      written += static_cast<std::size_t>(n);
    }
    co_await deliver();
  }

  Task<std::string> receive(std::size_t size) {
    std::string got;
    char buffer[16 * 1024];
    while (got.size() < size) {
      const int n = SSL_read(ssl_.get(), buffer, sizeof buffer);
      if (n > 0) {
        got.append(buffer, static_cast<std::size_t>(n));
        continue;
      }
      if (SSL_get_error(ssl_.get(), n) != SSL_ERROR_WANT_READ) break;
      const bool more = co_await pull();
      if (!more) break;
    }
    co_return got;
  }

  /// Sends close_notify, then reads until the server's close_notify (true) or EOF.
  Task<bool> close() {
    SSL_shutdown(ssl_.get());
    co_await deliver();
    char buffer[256];
    for (;;) {
      const int n = SSL_read(ssl_.get(), buffer, sizeof buffer);
      if (n > 0) continue;
      const int error = SSL_get_error(ssl_.get(), n);
      if (error == SSL_ERROR_ZERO_RETURN) co_return true;
      if (error != SSL_ERROR_WANT_READ) co_return false;
      const bool more = co_await pull();
      if (!more) co_return false;
    }
  }

  /// Writes raw bytes (not TLS) to the server, in the configured pieces.
  Task<void> send_raw(const std::string& bytes) { co_await deliver_bytes(bytes); }
  void close_socket() { fd_.reset(); }
  int fd() const { return fd_.get(); }

  SSL* ssl() const { return ssl_.get(); }
  std::size_t largest_flight() const { return largest_flight_; }

 private:
  Task<void> deliver() {
    std::string flight;
    char buffer[16 * 1024];
    for (int n; (n = BIO_read(out_, buffer, sizeof buffer)) > 0;) flight.append(buffer, static_cast<std::size_t>(n));
    co_await deliver_bytes(flight);
  }

  Task<void> deliver_bytes(const std::string& flight) {
    if (flight.empty()) co_return;
    largest_flight_ = std::max(largest_flight_, flight.size());
    std::vector<std::string_view> pieces;
    const std::string_view all(flight);
    if (split_.mode == Split::Mode::bytewise) {
      for (std::size_t i = 0; i < all.size(); ++i) pieces.push_back(all.substr(i, 1));
    } else if (split_.mode == Split::Mode::at && split_.position < all.size()) {
      pieces = {all.substr(0, split_.position), all.substr(split_.position)};
    } else {
      pieces = {all};
    }
    for (std::string_view piece : pieces) {
      while (!piece.empty()) {
        const ssize_t sent = ::send(fd_.get(), piece.data(), piece.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
        if (sent < 0 && errno != EAGAIN) co_return;  // the server is gone
        if (sent < 0) {
          co_await WriteWait{fd_.get()};
          continue;
        }
        piece.remove_prefix(static_cast<std::size_t>(sent));
      }
      if (split_.mode == Split::Mode::whole) continue;
      // Why wait: otherwise the kernel joins the pieces again before the server reads.
      for (int turns = 0; unread_bytes(server_fd_) > 0; ++turns) {
        if (turns > 100000) {
          ADD_FAILURE() << "the server stopped reading";
          co_return;
        }
        co_await Yield{};
      }
    }
  }

  // Moves whatever the server sent into the client's input; false at EOF.
  Task<bool> pull() {
    char buffer[16 * 1024];
    for (;;) {
      const ssize_t n = ::recv(fd_.get(), buffer, sizeof buffer, MSG_DONTWAIT);
      if (n > 0) {
        BIO_write(in_, buffer, static_cast<int>(n));
        co_return true;
      }
      if (n == 0 || errno != EAGAIN) co_return false;
      co_await ReadWait{fd_.get()};
    }
  }

  SslPtr ssl_;
  BIO* in_ = nullptr;   // owned by ssl_
  BIO* out_ = nullptr;  // owned by ssl_
  UniqueFd fd_;
  int server_fd_;  // to see how much the server has left unread; once it closes, FIONREAD fails and reads 0
  Split split_;
  std::size_t largest_flight_ = 0;
};

struct ServerOutcome {
  bool handshake = false;
  std::string alpn;
  bool finished = false;
};

// The server side as TlsTransport runs it: the stream is made when the
// first bytes arrive (a pooled receive), then handshake, then the echo
// protocol over the TLS stream.
Task<void> run_server(UniqueFd fd, const TlsContext& context, ServerOutcome& outcome) {
  ReadLease hello;
  const IoResult first = co_await RecvPooled{fd.get(), hello};
  if (!first || first.bytes() == 0) co_return;
  TlsStream stream(fd.get(), context.default_context(), std::move(hello));
  outcome.handshake = co_await stream.handshake();
  if (!outcome.handshake) co_return;
  outcome.alpn = std::string(stream.alpn());
  EchoProtocol echo(std::chrono::hours(1), std::chrono::hours(1));
  co_await serve_stream(echo, stream, "127.0.0.1:1", nullptr);
  outcome.finished = true;
}

struct ClientOutcome {
  bool handshake = false;
  std::string echoed;
  bool closed_cleanly = false;
};

Task<void> run_client(ScriptedClient& client, std::string request, ClientOutcome& outcome) {
  outcome.handshake = co_await client.handshake();
  if (!outcome.handshake) co_return;
  co_await client.send(request);
  outcome.echoed = co_await client.receive(request.size());
  outcome.closed_cleanly = co_await client.close();
}

std::string random_bytes(std::size_t size, unsigned seed) {
  std::string bytes(size, '\0');
  std::mt19937 rng(seed);
  for (char& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

// Each test's connection: the server's end is `a`, the client's `b`.
using tiffany::testing::SocketPair;

// Parameter: the TLS version both sides are held to.
class TlsStreamTest : public UringTest, public ::testing::WithParamInterface<int> {
 protected:
  static void SetUpTestSuite() {
    directory_ = std::filesystem::temp_directory_path() / ("tiffany-tls-unit-" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
    const auto files = testing::write_test_certificate(directory_.string(), "server", "localhost", {"localhost"});
    TlsConfig config;
    config.certificates.push_back(TlsCertificateConfig{{}, files.cert_file, files.key_file, "$.tls"});
    config.json_path = "$.tls";
    context_ = std::make_unique<TlsContext>(config, "test.json", std::vector<std::string>{"http/1.1"});
    cert_file_ = files.cert_file;
  }
  static void TearDownTestSuite() {
    context_.reset();
    std::filesystem::remove_all(directory_);
  }

  // A client context trusting our certificate, held to the parameter's version.
  static SslCtxPtr client_context(int version) {
    SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
    SSL_CTX_set_min_proto_version(ctx.get(), version);
    SSL_CTX_set_max_proto_version(ctx.get(), version);
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    EXPECT_EQ(SSL_CTX_load_verify_locations(ctx.get(), cert_file_.c_str(), nullptr), 1);
    return ctx;
  }

  struct Conversation {
    ServerOutcome server;
    ClientOutcome client;
    std::size_t largest_flight = 0;
  };

  // One connection: handshake, `request` echoed back, close_notify both ways.
  Conversation converse(Split split, const std::string& request) {
    SocketPair pair;
    const SslCtxPtr ctx = client_context(GetParam());
    ScriptedClient client(ctx.get(), std::move(pair.b), pair.a.get(), split);
    Conversation conversation;
    (void)scheduler().spawn(run_server(std::move(pair.a), *context_, conversation.server));
    (void)scheduler().spawn(run_client(client, request, conversation.client));
    scheduler().run();
    conversation.largest_flight = client.largest_flight();
    return conversation;
  }

  static void expect_complete(const Conversation& c, const std::string& request, const std::string& label) {
    EXPECT_TRUE(c.server.handshake) << label;
    EXPECT_TRUE(c.client.handshake) << label;
    EXPECT_EQ(c.server.alpn, "http/1.1") << label;
    EXPECT_TRUE(c.client.echoed == request) << label << ": echoed " << c.client.echoed.size() << " bytes";
    EXPECT_TRUE(c.client.closed_cleanly) << label;
    EXPECT_TRUE(c.server.finished) << label;
  }

  static inline std::filesystem::path directory_;
  static inline std::unique_ptr<TlsContext> context_;
  static inline std::string cert_file_;
};

TEST_P(TlsStreamTest, EchoesOverTheHandshakenStreamAndClosesWithCloseNotify) {
  const std::string request = "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n";
  expect_complete(converse(Split{}, request), request, "whole flights");
}

TEST_P(TlsStreamTest, SurvivesEveryByteArrivingAlone) {
  const std::string request = random_bytes(300, 1);
  expect_complete(converse(Split{Split::Mode::bytewise, 0}, request), request, "bytewise");
}

TEST_P(TlsStreamTest, SurvivesEveryFlightSplitAtEveryPosition) {
  const std::string request = random_bytes(200, 2);
  const std::size_t largest = converse(Split{}, request).largest_flight;
  ASSERT_GT(largest, 100u);
  for (std::size_t position = 1; position < largest; ++position) {
    const Conversation c = converse(Split{Split::Mode::at, position}, request);
    expect_complete(c, request, "split at " + std::to_string(position));
    if (::testing::Test::HasFailure()) break;  // one position's report is enough
  }
}

TEST_P(TlsStreamTest, LargeTransfersGoThroughPartialSends) {
  SocketPair pair;
  const int small = 4096;  // Why: makes the server's Sends return short, often
  ASSERT_EQ(::setsockopt(pair.a.get(), SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
  const SslCtxPtr ctx = client_context(GetParam());
  ScriptedClient client(ctx.get(), std::move(pair.b), pair.a.get(), Split{});
  ServerOutcome server;
  std::string echoed;
  const std::string payload = random_bytes(1 << 20, 3);
  auto client_side = [&]() -> Task<void> {
    const bool ready = co_await client.handshake();
    if (!ready) co_return;
    constexpr std::size_t kChunk = 64 * 1024;  // sent, then read back, so neither side's buffers fill
    for (std::size_t at = 0; at < payload.size(); at += kChunk) {
      co_await client.send(payload.substr(at, kChunk));
      echoed += co_await client.receive(kChunk);
    }
    (void)co_await client.close();
  };
  (void)scheduler().spawn(run_server(std::move(pair.a), *context_, server));
  (void)scheduler().spawn(client_side());
  scheduler().run();
  EXPECT_TRUE(server.finished);
  EXPECT_EQ(echoed.size(), payload.size());
  EXPECT_TRUE(echoed == payload);
}

TEST_P(TlsStreamTest, GarbageInsteadOfAClientHelloFailsOnlyTheHandshake) {
  SocketPair pair;
  const SslCtxPtr ctx = client_context(GetParam());
  ScriptedClient client(ctx.get(), std::move(pair.b), pair.a.get(), Split{Split::Mode::bytewise, 0});
  ServerOutcome server;
  auto client_side = [&]() -> Task<void> { co_await client.send_raw("GET / HTTP/1.1\r\nHost: x\r\n\r\n"); };
  (void)scheduler().spawn(run_server(std::move(pair.a), *context_, server));
  (void)scheduler().spawn(client_side());
  scheduler().run();
  EXPECT_FALSE(server.handshake);
  EXPECT_EQ(ERR_peek_error(), 0u) << "an error was left in this thread's OpenSSL queue";
}

TEST_P(TlsStreamTest, APeerLeavingMidHandshakeFailsIt) {
  SocketPair pair;
  const SslCtxPtr ctx = client_context(GetParam());
  ScriptedClient client(ctx.get(), std::move(pair.b), pair.a.get(), Split{Split::Mode::at, 40});
  ServerOutcome server;
  auto client_side = [&]() -> Task<void> {
    SSL_do_handshake(client.ssl());  // writes the ClientHello into the client's memory BIO
    char hello[4096];
    BIO* out = SSL_get_wbio(client.ssl());
    const int n = BIO_read(out, hello, sizeof hello);
    co_await client.send_raw(std::string(hello, static_cast<std::size_t>(std::max(n, 0))).substr(0, 60));
    client.close_socket();
  };
  (void)scheduler().spawn(run_server(std::move(pair.a), *context_, server));
  (void)scheduler().spawn(client_side());
  scheduler().run();
  EXPECT_FALSE(server.handshake);
}

TEST_P(TlsStreamTest, AClientRejectingTheCertificateFailsTheHandshake) {
  SocketPair pair;
  const SslCtxPtr ctx = client_context(GetParam());
  ScriptedClient client(ctx.get(), std::move(pair.b), pair.a.get(), Split{}, "other.test");
  ServerOutcome server;
  ClientOutcome outcome;
  (void)scheduler().spawn(run_server(std::move(pair.a), *context_, server));
  (void)scheduler().spawn(run_client(client, "x", outcome));
  scheduler().run();
  EXPECT_FALSE(outcome.handshake);
  EXPECT_FALSE(server.handshake);
  ERR_clear_error();  // the client's verification failure, on this same thread
}

TEST_P(TlsStreamTest, AReaderWaitingForInputHoldsNoBuffer) {
  SocketPair pair;
  const SslCtxPtr ctx = client_context(GetParam());
  ScriptedClient client(ctx.get(), std::move(pair.b), pair.a.get(), Split{});
  const int server_fd = pair.a.get();
  SpareReadBuffers& spares = SpareReadBuffers::for_this_thread();
  std::unique_ptr<TlsStream> stream;
  bool established = false;
  std::size_t spares_before_wait = 0;
  std::size_t spares_while_waiting = 0;
  std::string received;
  auto server_side = [&]() -> Task<void> {
    ReadLease hello;
    const IoResult first = co_await RecvPooled{server_fd, hello};
    if (!first || first.bytes() == 0) co_return;
    stream = std::make_unique<TlsStream>(server_fd, context_->default_context(), std::move(hello));
    established = co_await stream->handshake();
    if (!established) co_return;
    spares_before_wait = spares.kept();
    ReadLease input;
    const IoResult got = co_await stream->read_pooled(input);
    if (got && got.bytes() > 0) received.assign(input.bytes());
  };
  auto client_side = [&]() -> Task<void> {
    const bool ready = co_await client.handshake();
    if (!ready) co_return;
    for (int i = 0; i < 100; ++i) co_await Yield{};  // the server waits for input meanwhile
    spares_while_waiting = spares.kept();
    co_await client.send("late bytes");
  };
  (void)scheduler().spawn(server_side());
  (void)scheduler().spawn(client_side());
  scheduler().run();
  ASSERT_TRUE(established);
  EXPECT_EQ(received, "late bytes");
  // Why: a spare taken to wait would be missing from the pool (the receive
  // itself draws from io_uring's provided-buffer ring only when bytes come).
  EXPECT_EQ(spares_while_waiting, spares_before_wait) << "the waiting reader held a spare buffer";
  EXPECT_FALSE(stream->has_buffered_input());
  stream.reset();
  ERR_clear_error();
}

Task<void> accept_tls(int fd, const TlsContext& context, std::unique_ptr<TlsStream>& stream, bool& established) {
  ReadLease hello;
  const IoResult first = co_await RecvPooled{fd, hello};
  if (!first || first.bytes() == 0) co_return;
  stream = std::make_unique<TlsStream>(fd, context.default_context(), std::move(hello));
  established = co_await stream->handshake();
}

Task<void> handshake_client(ScriptedClient& client, bool& established) { established = co_await client.handshake(); }

// What callers ask of a stream without knowing it is TLS (ByteStream): it
// says it is encrypted and names its socket; input it holds decrypted counts
// as ready, and a wait for input ends at once for it, where the socket has
// nothing more to announce.
TEST_P(TlsStreamTest, BufferedInputIsReadyAndEndsAWaitWhereTheSocketIsQuiet) {
  SocketPair pair;
  const SslCtxPtr ctx = client_context(GetParam());
  ScriptedClient client(ctx.get(), std::move(pair.b), pair.a.get(), Split{});
  const int server_fd = pair.a.get();
  std::unique_ptr<TlsStream> stream;
  bool established = false;
  bool client_ready = false;
  std::string first_byte;
  bool ready_before = true;
  bool ready_with_rest = false;
  bool buffered_with_rest = false;
  IoResult waited{-1};
  std::string rest;
  auto server_side = [&]() -> Task<void> {
    co_await accept_tls(server_fd, *context_, stream, established);
    if (!established) co_return;
    const ByteStream& any = *stream;
    ready_before = any.input_ready();  // the client has sent nothing since the handshake
    char byte = 0;
    const IoResult got = co_await stream->read(&byte, 1);  // one byte of the client's record
    if (got && got.bytes() == 1) first_byte.assign(1, byte);
    ready_with_rest = any.input_ready();
    buffered_with_rest = any.has_buffered_input();
    waited = co_await stream->wait_readable();  // no socket input: returns only because of the buffer
    char buffer[64];
    const IoResult more = co_await stream->read(buffer, sizeof buffer);
    if (more && more.bytes() > 0) rest.assign(buffer, more.bytes());
  };
  auto client_side = [&]() -> Task<void> {
    client_ready = co_await client.handshake();
    if (!client_ready) co_return;
    for (int i = 0; i < 20; ++i) co_await Yield{};  // the server looks before anything comes
    co_await client.send("hello");
  };
  (void)scheduler().spawn(server_side());
  (void)scheduler().spawn(client_side());
  scheduler().run();
  ASSERT_TRUE(established);
  ASSERT_TRUE(client_ready);
  EXPECT_TRUE(stream->encrypted());
  EXPECT_EQ(stream->socket(), server_fd);
  EXPECT_FALSE(ready_before);
  EXPECT_EQ(first_byte, "h");
  EXPECT_TRUE(ready_with_rest);
  EXPECT_TRUE(buffered_with_rest);
  EXPECT_TRUE(waited.ok()) << waited.message();
  EXPECT_EQ(rest, "ello");
  stream.reset();
  ERR_clear_error();
}

// shutdown_write ends our direction with close_notify and a FIN, and, unlike
// finish(), what the client sends after it is still read.
TEST_P(TlsStreamTest, AHalfCloseSendsCloseNotifyAndStillReadsThePeer) {
  SocketPair pair;
  const SslCtxPtr ctx = client_context(GetParam());
  ScriptedClient client(ctx.get(), std::move(pair.b), pair.a.get(), Split{});
  const int server_fd = pair.a.get();
  std::unique_ptr<TlsStream> stream;
  bool established = false;
  bool client_saw_close_notify = false;
  std::string after_half_close;
  auto server_side = [&]() -> Task<void> {
    co_await accept_tls(server_fd, *context_, stream, established);
    if (!established) co_return;
    stream->shutdown_write();
    char buffer[64];
    const IoResult got = co_await stream->read(buffer, sizeof buffer);
    if (got && got.bytes() > 0) after_half_close.assign(buffer, got.bytes());
  };
  auto client_side = [&]() -> Task<void> {
    const bool ready = co_await client.handshake();
    if (!ready) co_return;
    const std::string nothing = co_await client.receive(1);  // ends at the close_notify
    char probe = 0;
    client_saw_close_notify =
        nothing.empty() && SSL_get_error(client.ssl(), SSL_read(client.ssl(), &probe, 1)) == SSL_ERROR_ZERO_RETURN;
    co_await client.send("still here");
  };
  (void)scheduler().spawn(server_side());
  (void)scheduler().spawn(client_side());
  scheduler().run();
  ASSERT_TRUE(established);
  EXPECT_TRUE(client_saw_close_notify);
  EXPECT_EQ(after_half_close, "still here");
  stream.reset();
  ERR_clear_error();
}

// Writes `bytes` through the stream; a client that reads nothing keeps it waiting.
Task<void> write_bytes(TlsStream& stream, std::size_t bytes, bool& returned) {
  const std::string data(bytes, 'w');
  (void)co_await stream.write(data.data(), data.size());
  returned = true;
}

Task<void> stop_after(std::chrono::milliseconds wait) {
  co_await Sleep(wait);
  Scheduler::current().stop();
}

// A worker forced to stop destroys the frames left in any order. Here the stream goes first, then
// (in TearDown, with the scheduler) two writes still under way: one sending, one waiting for its turn
// to flush. Handing the turn on must not touch the freed stream (ASan, in CI, says if it does).
TEST_P(TlsStreamTest, WritesOutlivingTheirStreamLetGoOfTheFlushTurnWithoutTouchingIt) {
  SocketPair pair;
  const SslCtxPtr ctx = client_context(GetParam());
  ScriptedClient client(ctx.get(), std::move(pair.b), pair.a.get(), Split{});
  std::unique_ptr<TlsStream> stream;
  bool server_ready = false;
  bool client_ready = false;
  (void)scheduler().spawn(accept_tls(pair.a.get(), *context_, stream, server_ready));
  (void)scheduler().spawn(handshake_client(client, client_ready));
  scheduler().run();
  ASSERT_TRUE(server_ready && client_ready);

  // Far more than the socket pair holds: the first write waits in its send, the second for the turn.
  bool first_returned = false;
  bool second_returned = false;
  (void)scheduler().spawn(write_bytes(*stream, 8 << 20, first_returned));
  (void)scheduler().spawn(write_bytes(*stream, 8 << 20, second_returned));
  (void)scheduler().spawn(stop_after(std::chrono::milliseconds(100)));
  scheduler().run();
  EXPECT_FALSE(first_returned);
  EXPECT_FALSE(second_returned);
  EXPECT_GT(unread_bytes(client.fd()), 0u) << "the first write sent nothing";
  stream.reset();
  ERR_clear_error();
}

INSTANTIATE_TEST_SUITE_P(Versions, TlsStreamTest, ::testing::Values(TLS1_2_VERSION, TLS1_3_VERSION),
                         [](const ::testing::TestParamInfo<int>& param_info) {
                           return param_info.param == TLS1_3_VERSION ? std::string("Tls13") : std::string("Tls12");
                         });

}  // namespace
}  // namespace tiffany::tls

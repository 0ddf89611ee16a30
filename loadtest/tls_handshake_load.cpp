// tls_handshake_load: new TLS handshakes per second against a server. N
// connections each connect, complete a full handshake (no resumption) and
// close, over and over until the duration is over. Runs on Tiffany's own
// reactor and TlsStream, so the client spends its CPU on the cryptography.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "coro/syscalls.hpp"
#include "reactor/connect.hpp"
#include "reactor/unique_fd.hpp"
#include "reactor/uring_reactor.hpp"
#include "server/transport/tls/tls_stream.hpp"

namespace {

using namespace tiffany;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  int port = 8443;
  int connections = 8;
  double duration_seconds = 5;
  int version = TLS1_3_VERSION;
};

struct Totals {
  std::uint64_t handshakes = 0;
  std::uint64_t errors = 0;
};

[[noreturn]] void usage(const char* problem) {
  std::fprintf(stderr,
               "tls_handshake_load: %s\n"
               "usage: tls_handshake_load [--host 127.0.0.1] [--port 8443] [--connections 8] [--duration 5]\n"
               "                          [--tls 1.2|1.3]\n",
               problem);
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--host" && has_value) {
      options.host = argv[++i];
    } else if (arg == "--port" && has_value) {
      options.port = std::atoi(argv[++i]);
    } else if (arg == "--connections" && has_value) {
      options.connections = std::atoi(argv[++i]);
    } else if (arg == "--duration" && has_value) {
      options.duration_seconds = std::atof(argv[++i]);
    } else if (arg == "--tls" && has_value) {
      const std::string_view version = argv[++i];
      if (version != "1.2" && version != "1.3") usage("--tls takes 1.2 or 1.3");
      options.version = version == "1.2" ? TLS1_2_VERSION : TLS1_3_VERSION;
    } else {
      usage(("unknown or incomplete argument " + std::string(arg)).c_str());
    }
  }
  if (options.connections < 1 || options.duration_seconds <= 0 || options.port < 1 || options.port > 65535) {
    usage("connections, duration and port must be positive");
  }
  return options;
}

// One client slot: connect, handshake, close; again until `deadline`.
Task<void> drive_handshakes(SSL_CTX* ctx, const sockaddr_in& server, Clock::time_point deadline, Totals& totals) {
  while (Clock::now() < deadline) {
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    const IoResult connected = co_await Connect{fd.get(), reinterpret_cast<const sockaddr*>(&server), sizeof server};
    if (!connected) {
      std::fprintf(stderr, "tls_handshake_load: connect: %s\n", connected.message().c_str());
      ++totals.errors;
      co_return;
    }
    const int one = 1;
    ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    tls::SslPtr ssl(SSL_new(ctx));
    SSL_set_connect_state(ssl.get());
    tls::TlsStream stream(std::move(fd), std::move(ssl));
    const bool done = co_await stream.handshake();
    if (done) {
      ++totals.handshakes;
    } else {
      ++totals.errors;
    }
    // Why no close_notify: like `openssl s_time -new`, the connection is dropped
    // once the handshake is complete.
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port = htons(static_cast<std::uint16_t>(options.port));
  if (inet_pton(AF_INET, options.host.c_str(), &server.sin_addr) != 1) usage("--host must be an IPv4 address");

  tls::SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  SSL_CTX_set_min_proto_version(ctx.get(), options.version);
  SSL_CTX_set_max_proto_version(ctx.get(), options.version);
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);  // every handshake a full one
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);        // as s_time: measure the server, not X.509

  UringReactor reactor;
  Scheduler scheduler(&reactor);
  Totals totals;
  const auto start = Clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.duration_seconds));
  for (int i = 0; i < options.connections; ++i) {
    (void)scheduler.spawn(drive_handshakes(ctx.get(), server, deadline, totals));
  }
  scheduler.run();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("connections=%d tls=%s duration=%.2fs handshakes=%llu handshakes_per_sec=%.0f errors=%llu\n",
              options.connections, options.version == TLS1_2_VERSION ? "1.2" : "1.3", elapsed,
              static_cast<unsigned long long>(totals.handshakes), static_cast<double>(totals.handshakes) / elapsed,
              static_cast<unsigned long long>(totals.errors));
  return totals.errors == 0 ? 0 : 1;
}

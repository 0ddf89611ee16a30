// tls_handshake_load: new TLS handshakes per second against a server. N
// connections each connect, complete a full handshake (no resumption) and
// close, over and over until the duration is over. Runs on Tiffany's own
// reactor and TlsStream, so the client spends its CPU on the cryptography.
#include <netinet/in.h>

#include <openssl/ssl.h>

#include <chrono>
#include <cstdio>
#include <string_view>
#include <utility>

#include "loadtest/load_options.hpp"
#include "loadtest/load_run.hpp"
#include "net/engine/tls/tls_stream.hpp"

namespace {

using namespace tiffany;
using loadtest::Clock;

struct Options {
  loadtest::LoadOptions load{.port = 8443, .connections = 8};
  int version = TLS1_3_VERSION;
};

struct Totals {
  std::uint64_t handshakes = 0;
  std::uint64_t errors = 0;
};

// Parses the command line into `options` and the server's address; exits with the usage on a problem.
void parse_options(int argc, char** argv, Options& options, sockaddr_in& server) {
  const loadtest::CommandLine command_line("tls_handshake_load", options.load, "[--tls 1.2|1.3]");
  command_line.parse(argc, argv, options.load, server, {}, [&](std::string_view flag, const char* value) {
    const std::string_view version = value;
    if (flag != "--tls") return false;
    if (version != "1.2" && version != "1.3") command_line.fail("--tls takes 1.2 or 1.3");
    options.version = version == "1.2" ? TLS1_2_VERSION : TLS1_3_VERSION;
    return true;
  });
}

// One client slot: connect, handshake, close; again until `deadline`.
Task<void> drive_handshakes(SSL_CTX* ctx, const sockaddr_in& server, Clock::time_point deadline, Totals& totals) {
  while (Clock::now() < deadline) {
    UniqueFd fd = co_await loadtest::connect_tcp(server, "tls_handshake_load");
    if (!fd) {
      ++totals.errors;
      co_return;
    }
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
  Options options;
  sockaddr_in server{};
  parse_options(argc, argv, options, server);

  tls::SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  SSL_CTX_set_min_proto_version(ctx.get(), options.version);
  SSL_CTX_set_max_proto_version(ctx.get(), options.version);
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);  // every handshake a full one
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);        // as s_time: measure the server, not X.509

  Totals totals;
  const double elapsed = loadtest::run_until_deadline(
      options.load.connections, options.load.duration_seconds,
      [&](Clock::time_point deadline) { return drive_handshakes(ctx.get(), server, deadline, totals); });
  std::printf("connections=%d tls=%s duration=%.2fs handshakes=%llu handshakes_per_sec=%.0f errors=%llu\n",
              options.load.connections, options.version == TLS1_2_VERSION ? "1.2" : "1.3", elapsed,
              static_cast<unsigned long long>(totals.handshakes), static_cast<double>(totals.handshakes) / elapsed,
              static_cast<unsigned long long>(totals.errors));
  return totals.errors == 0 ? 0 : 1;
}

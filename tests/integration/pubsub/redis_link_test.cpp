// The Redis link against a real redis-server on loopback: a Redis that stops answering (SIGSTOP) is
// noticed by PING and the answer deadline and rejoined after SIGCONT; what queues for it stays bounded;
// AUTH with requirepass and with an ACL user (the secret from a file); TLS on its tls-port; and the
// object form of `redis` refusing bad settings by their JSON path.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "integration/pubsub/pubsub_fixture.hpp"
#include "support/test_certificate.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

// A number after `key` in a driver's JSON ("noticed_after_s": 7.5), or -1.
double number_after(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) return -1;
  try {
    return std::stod(json.substr(at + key.size() + 4));
  } catch (const std::exception&) {
    return -1;
  }
}

// The sum of a metric's samples in `port`'s /metrics: `name` alone (any labels) or with its labels; -1 if none.
double metric(int port, const std::string& name) {
  std::istringstream lines(
      run_program("curl", {"-sS", "--max-time", "5", "http://127.0.0.1:" + std::to_string(port) + "/metrics"}).out);
  double sum = -1;
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(name, 0) != 0 || line.size() <= name.size()) continue;
    if (line[name.size()] != ' ' && line[name.size()] != '{') continue;
    sum = (sum < 0 ? 0 : sum) + std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

std::string redis_with(int port, const std::string& more = "") {
  return R"({"redis": {"address": "127.0.0.1:)" + std::to_string(port) + "\"" + more + "}}";
}

// Issue "Defects found from outside", item 5: a Redis stopped while the link is idle (nothing
// published) is noticed by the link's PINGs within ping interval + answer deadline (5 s + 5 s);
// then publishes are refused at once and nothing queues; after SIGCONT the link reconnects and
// a subscriber from before hears what is published. Before PING and the answer deadline, the
// link stayed "connected" to the stopped Redis forever and this failed at its 30 s bound.
TEST(PubSubRedisLink, ARedisStoppedWithSigstopIsNoticedPublishesAreRefusedAndItIsRejoinedAfterSigcont) {
  TempDir dir;
  RedisServer redis(dir.path());
  ServerProcess server(config(1, redis_with(redis.port())));
  const int port = server.port_of("ws");
  const std::string seen =
      drive({"stall", "--port", std::to_string(port), "--redis-pid", std::to_string(redis.pid())}, kLinkDriver);
  EXPECT_GT(number_after(seen, "noticed_after_s"), 0) << seen;
  EXPECT_LT(number_after(seen, "noticed_after_s"), 20) << seen;
  EXPECT_EQ(number_after(seen, "refused"), 100) << seen;   // all 100 publishes while it was down
  EXPECT_EQ(number_after(seen, "queued_bytes"), 0) << seen;  // none of them queued
  EXPECT_GE(number_after(seen, "refused_total"), 100) << seen;
  EXPECT_TRUE(has(server.err(), "pubsub: lost Redis at 127.0.0.1:" + std::to_string(redis.port()) +
                                    ": no answer on the ")) << server.err();
  EXPECT_TRUE(has(server.err(), "connection in 5 s; reconnecting")) << server.err();
  EXPECT_TRUE(has(server.err(), "pubsub: connected to Redis at 127.0.0.1:")) << server.err();
  // The tries while it was stopped found a connection (the kernel accepts for it) and no answer.
  EXPECT_TRUE(has(server.err(), "no answer to PING in 5 s; retrying")) << server.err();
  EXPECT_GE(metric(port, "tiffany_pubsub_redis_losses_total{redis=\"127.0.0.1:" + std::to_string(redis.port()) +
                             "\",reason=\"answer_timeout\"}"), 1);
  EXPECT_EQ(metric(port, "tiffany_pubsub_redis_connected"), 1);
}

// A burst published into a stopped Redis before the link notices: what waits for Redis stays
// under its 8 MiB bound (plus the one command that crossed it), and the rest is refused. The write
// that no longer moves is dropped on timeout_ms (2 s here; PINGs are kept out of it).
TEST(PubSubRedisLink, WhileAStoppedRedisIsNotYetNoticedWhatQueuesForItStaysBoundedAndTheRestIsRefused) {
  TempDir dir;
  RedisServer redis(dir.path());
  ServerProcess server(config(1, redis_with(redis.port(), R"(, "timeout_ms": 2000, "ping_interval_ms": 600000)")));
  const int port = server.port_of("ws");
  // 600 x 64 KiB (39 MB): more than the socket buffers and the bound hold together.
  const std::string seen =
      drive({"burst", "--port", std::to_string(port), "--redis-pid", std::to_string(redis.pid())}, kLinkDriver);
  EXPECT_GT(number_after(seen, "refused"), 0) << seen;
  EXPECT_GT(number_after(seen, "peak_queued_bytes"), 0) << seen;
  EXPECT_LE(number_after(seen, "peak_queued_bytes"), 8 * 1024 * 1024 + 70'000) << seen;
  EXPECT_TRUE(eventually([&] { return has(server.err(), "pubsub: lost Redis at"); }, 20s)) << server.err();
  EXPECT_TRUE(has(server.err(), ": a write did not finish in 2 s; reconnecting")) << server.err();
  EXPECT_EQ(metric(port, "tiffany_pubsub_redis_losses_total{redis=\"127.0.0.1:" + std::to_string(redis.port()) +
                             "\",reason=\"write_timeout\"}"), 1);
}

// requirepass: the right password (from a file, with its trailing newline) works across two
// workers; a wrong one is one error line naming Redis's refusal, publishes are refused, and the
// link retries with back-off (a handful of tries in 8 s, not a storm).
TEST(PubSubRedisLink, WithRequirepassTheRightPasswordWorksAndAWrongOneIsOneErrorLineWithoutAStorm) {
  TempDir dir;
  RedisServer redis(dir.path(), {"--requirepass", "s3cret pass"}, {"--no-auth-warning", "-a", "s3cret pass"});
  const std::string right = dir.write("right.txt", "s3cret pass\n");
  const std::string wrong = dir.write("wrong.txt", "guess\n");
  ServerProcess good(config(2, redis_with(redis.port(), R"(, "password_file": ")" + right + "\"")));
  const std::string seen = drive({"fanout", "--ports", std::to_string(good.port_of("ws")), "--subscribers", "4",
                                  "--messages", "3"});
  EXPECT_TRUE(has(seen, "\"subscribers\": 4")) << seen;

  ServerProcess bad(config(1, redis_with(redis.port(), R"(, "password_file": ")" + wrong + "\"")));
  const int bad_port = bad.port_of("ws");
  drive({"refused", "--port", std::to_string(bad_port)}, kLinkDriver);
  const double failures_before = metric(bad_port, "tiffany_pubsub_redis_connect_failures_total");
  std::this_thread::sleep_for(8s);
  const double failures = metric(bad_port, "tiffany_pubsub_redis_connect_failures_total") - failures_before;
  EXPECT_GE(failures, 1) << "it stopped retrying";
  EXPECT_LE(failures, 6) << "back-off reaches 5 s between tries";
  const std::string refusal = "pubsub: cannot use Redis at 127.0.0.1:" + std::to_string(redis.port()) +
                              ": Redis refused AUTH: WRONGPASS";
  EXPECT_EQ(count_of(bad.err(), refusal), 1) << bad.err();
  EXPECT_TRUE(has(bad.err(), "[error]")) << bad.err();
  EXPECT_FALSE(has(bad.err(), "s3cret") || has(bad.err(), "guess")) << "a password in the log: " << bad.err();
  EXPECT_FALSE(has(good.err(), "cannot use Redis")) << good.err();
}

// An ACL user (the default user switched off): AUTH with the user and its password; its channel
// rules in Redis are what the link may do.
TEST(PubSubRedisLink, AnAclUserLogsInWithItsPasswordFromAFile) {
  TempDir dir;
  RedisServer redis(dir.path());
  ASSERT_EQ(redis.cli({"ACL", "SETUSER", "tiffany", "on", ">pw-of-tiffany", "resetchannels", "&tiffany.pubsub.*",
                       "+publish", "+subscribe", "+unsubscribe", "+ping", "+info"}).out, "OK\n");
  ASSERT_EQ(redis.cli({"ACL", "SETUSER", "default", "off"}).out, "OK\n");
  const std::string secret = dir.write("tiffany.secret", "pw-of-tiffany");
  ServerProcess server(config(2, redis_with(redis.port(), R"(, "user": "tiffany", "password_file": ")" + secret +
                                                              R"(", "ping_interval_ms": 200)")));
  const std::string seen = drive({"fanout", "--ports", std::to_string(server.port_of("ws")), "--subscribers", "4",
                                  "--messages", "3"});
  EXPECT_TRUE(has(seen, "\"subscribers\": 4")) << seen;
  EXPECT_FALSE(has(server.err(), "cannot use Redis")) << server.err();
  // Idle, each connection PINGs every 200 ms (ping_interval_ms), as the user: many in 2 s.
  std::this_thread::sleep_for(2s);
  const std::string stats = redis.cli({"--user", "tiffany", "--pass", "pw-of-tiffany", "--no-auth-warning", "INFO",
                                       "commandstats"}).out;
  const std::size_t at = stats.find("cmdstat_ping:calls=");
  ASSERT_NE(at, std::string::npos) << stats;
  EXPECT_GE(std::stoi(stats.substr(at + 19)), 10) << stats;

  // Without the user, the same password is refused (the default user is off, without a password).
  ServerProcess nobody(config(1, redis_with(redis.port(), R"(, "password_file": ")" + secret + "\"")));
  drive({"refused", "--port", std::to_string(nobody.port_of("ws"))}, kLinkDriver);
  EXPECT_TRUE(eventually([&] { return has(nobody.err(), "[error] worker 0: pubsub: cannot use Redis at 127.0.0.1:" +
                                                             std::to_string(redis.port()) + ": Redis refused AUTH: "); },
                         10s)) << nobody.err();
}

// TLS on Redis's tls-port (no plain port): with its CA configured (and the name its certificate
// carries) the link works; a client that does not trust the certificate logs why and publishes fail.
TEST(PubSubRedisLink, OverTlsWithTheCaConfiguredItWorksAndAnUntrustedCertificateIsAClearErrorLine) {
  TempDir dir;
  const TestCertificate cert = write_test_certificate(dir.path(), "redis", "redis.test", {"redis.test"});
  RedisServer redis(dir.path(),
                    {"--tls-port", "PORT", "--tls-cert-file", cert.cert_file, "--tls-key-file", cert.key_file,
                     "--tls-ca-cert-file", cert.cert_file, "--tls-auth-clients", "no"},
                    {"--tls", "--cacert", cert.cert_file, "--sni", "redis.test"});
  ServerProcess server(config(2, redis_with(redis.port(), R"(, "tls": {"ca_file": ")" + cert.cert_file +
                                                              R"(", "server_name": "redis.test"})")));
  const std::string seen = drive({"fanout", "--ports", std::to_string(server.port_of("ws")), "--subscribers", "4",
                                  "--messages", "3"});
  EXPECT_TRUE(has(seen, "\"subscribers\": 4")) << seen;

  ServerProcess untrusting(config(1, redis_with(redis.port(), R"(, "tls": {"server_name": "redis.test"})")));
  drive({"refused", "--port", std::to_string(untrusting.port_of("ws"))}, kLinkDriver);
  EXPECT_TRUE(has(untrusting.err(), "pubsub: cannot use Redis at 127.0.0.1:" + std::to_string(redis.port()) + ": "))
      << untrusting.err();
  EXPECT_TRUE(has(untrusting.err(), "certificate verify failed")) << untrusting.err();
}

// `--check-config` on a pubsub route's `with`; returns the error output.
std::string check_error(const std::string& with) {
  TempDir dir;
  const RunResult run =
      run_program(tiffany_binary(), {"--check-config", "--config", dir.write("c.json", config(1, with))}, 30s);
  EXPECT_NE(run.exit_code, 0) << with;
  return run.err;
}

// Keys listed in `| \`key\` |` rows of the docs/config.md section `heading`.
std::set<std::string> documented_keys(const std::string& heading) {
  std::ifstream page(std::string(TIFFANY_SOURCE_DIR) + "/docs/config.md");
  std::set<std::string> keys;
  std::string line;
  bool inside = false;
  while (std::getline(page, line)) {
    if (line.rfind("## ", 0) == 0) inside = line == "## " + heading;
    if (inside && line.rfind("| `", 0) == 0) keys.insert(line.substr(3, line.find('`', 3) - 3));
  }
  return keys;
}

// The quoted names after "expected one of " in `error`.
std::set<std::string> expected_keys(const std::string& error) {
  std::set<std::string> keys;
  const std::size_t at = error.find("expected one of ");
  if (at == std::string::npos) return keys;
  const std::string list = error.substr(at, error.find('\n', at) - at);
  for (std::size_t open = list.find('"'); open != std::string::npos; open = list.find('"', list.find('"', open + 1) + 1)) {
    keys.insert(list.substr(open + 1, list.find('"', open + 1) - open - 1));
  }
  return keys;
}

TEST(PubSubRedisLink, BadRedisSettingsNameTheirJsonPathAndTheDocsListEveryKey) {
  const std::string route = "$.listeners[0].routes[1].with.redis";
  const std::string unknown = check_error(R"({"redis": {"address": "127.0.0.1:6379", "zz": 1}})");
  EXPECT_TRUE(has(unknown, route + ".zz: unknown key; expected one of ")) << unknown;
  EXPECT_EQ(expected_keys(unknown), documented_keys("Handler `pubsub`: `redis` (object form)")) << unknown;
  const std::string tls = check_error(R"({"redis": {"address": "127.0.0.1:6379", "tls": {"zz": 1}}})");
  EXPECT_TRUE(has(tls, route + ".tls.zz: unknown key; expected one of ")) << tls;
  EXPECT_EQ(expected_keys(tls), documented_keys("Handler `pubsub`: `redis.tls`")) << tls;

  EXPECT_TRUE(has(check_error(R"({"redis": {"user": "a"}})"), route + ".address: missing required key"));
  EXPECT_TRUE(has(check_error(R"({"redis": 5})"), route + ": expected \"host:port\" or an object"));
  EXPECT_TRUE(has(check_error(R"({"redis": {"address": "nowhere"}})"), route + ".address: expected \"host:port\""));
  const std::string missing = check_error(R"({"redis": {"address": "127.0.0.1:6379", "password_file": "no.txt"}})");
  EXPECT_TRUE(has(missing, "c.json: " + route + ".password_file: cannot read \"")) << missing;
  EXPECT_TRUE(has(missing, "no.txt\": No such file or directory")) << missing;
  EXPECT_TRUE(has(check_error(R"({"redis": {"address": "127.0.0.1:6379", "user": "u"}})"),
                  route + ".user: an ACL user needs \"password_file\" too"));
  EXPECT_TRUE(has(check_error(R"({"redis": {"address": "127.0.0.1:6379", "ping_interval_ms": 5}})"),
                  route + ".ping_interval_ms: expected an integer from 100 to 3600000, got 5"));
  EXPECT_TRUE(has(check_error(R"({"redis": {"address": "127.0.0.1:6379", "tls": {"verify": "no"}}})"),
                  route + ".tls.verify: expected true or false"));
  // The string form still works, and its errors are as before.
  EXPECT_TRUE(has(check_error(R"({"redis": "localhost"})"), route + ": expected \"host:port\""));
}

// The fixture's own guard: a Redis started on a port another test's Redis holds is not taken for
// that one (which answers its PING); the test fails instead of stopping a Redis it never had.
TEST(PubSubRedisFixture, ARedisOnAPortAnotherRedisHoldsIsNotTakenForTheOther) {
  TempDir first_dir;
  TempDir second_dir;
  RedisServer first(first_dir.path());
  // Why statics: EXPECT_NONFATAL_FAILURE's statement may not name the test's locals.
  static std::string dir;
  static int port;
  dir = second_dir.path();
  port = first.port();
  EXPECT_NONFATAL_FAILURE(RedisServer(dir, {}, {}, port), "did not start on a port of its own");
  EXPECT_EQ(first.cli({"ping"}).out, "PONG\n");  // the first one is untouched
}

}  // namespace
}  // namespace tiffany::testing

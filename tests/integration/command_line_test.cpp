// The binary's command line and its refusals of bad configs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "server_process.hpp"
#include "support/loopback_socket.hpp"

namespace tiffany::testing {
namespace {

TEST(CommandLine, HelpDescribesTheOptions) {
  const RunResult run = run_tiffany({"--help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("--config FILE"), std::string::npos);
  EXPECT_NE(run.out.find("--check-config"), std::string::npos);
}

TEST(CommandLine, VersionPrintsTheVersion) {
  const RunResult run = run_tiffany({"--version"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, "tiffany 0.1.0\n");
}

TEST(CommandLine, AnUnknownArgumentIsAUsageError) {
  const RunResult run = run_tiffany({"--frobnicate"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("unknown or incomplete argument '--frobnicate'"), std::string::npos);
}

TEST(CommandLine, CheckConfigAcceptsTheShippedConfig) {
  // Why a copy: the HTTPS listener's certificate is made on first use by
  // scripts/run.sh and is not in a fresh clone; the copy gets its own, made by
  // the same script, so this passes either way and leaves conf/ untouched.
  TempDir dir;
  std::filesystem::copy(TIFFANY_SOURCE_DIR "/conf", dir.path() + "/conf", std::filesystem::copy_options::recursive);
  std::filesystem::remove_all(dir.path() + "/conf/tls");
  const RunResult made = run_program(TIFFANY_SOURCE_DIR "/scripts/make-dev-cert.sh", {dir.path() + "/conf/tls"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const RunResult run = run_tiffany({"--check-config", "--config", dir.path() + "/conf/tiffany.json"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("is valid (3 listeners)"), std::string::npos) << run.out;
}

// Runs the binary on `config_json` and returns its stderr, checking that it
// refused to start: exit 1, exactly one line, nothing listening.
std::string refusal_for(const std::string& config_json) {
  TempDir dir;
  const std::string path = dir.write("bad.json", config_json);
  const RunResult run = run_tiffany({"--config", path});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_EQ(run.out.find("listener"), std::string::npos) << "something started: " << run.out;
  std::string message = run.err;
  const std::string prefix = "tiffany: config error: " + path + ": ";
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
  return message.substr(std::min(prefix.size(), message.size()));
}

TEST(CommandLine, RefusesInvalidJson) {
  EXPECT_EQ(refusal_for("{\"listeners\": [\n  {\"name\": \"e\",}\n]}"),
            "$: invalid JSON: syntax error at line 2 near: }\n");
}

TEST(CommandLine, RefusesAnUnknownKey) {
  EXPECT_EQ(refusal_for(R"({"listeners": [{"name": "e", "adress": "127.0.0.1:0", "protocol": "echo"}]})"),
            "$.listeners[0].adress: unknown key; expected one of \"name\", \"address\", \"protocol\", "
            "\"share_port\", \"routes\", \"limits\", \"timeouts\", \"tls\", \"compress\", \"middleware\", \"not_found\", \"method_not_allowed\", "
            "\"proxy_protocol\", \"http2\"\n");
}

TEST(CommandLine, RefusesAWrongType) {
  EXPECT_EQ(refusal_for(R"({"listeners": [{"name": ["e"], "address": "127.0.0.1:0", "protocol": "echo"}]})"),
            "$.listeners[0].name: expected a non-empty string, got an array\n");
}

TEST(CommandLine, RefusesABadAddress) {
  EXPECT_EQ(refusal_for(R"({"listeners": [{"name": "e", "address": "127.0.0.1:99999", "protocol": "echo"}]})"),
            "$.listeners[0].address: expected \"HOST:PORT\" with an IPv4 address, [IPv6] address or localhost and a "
            "port from 0 to 65535, got \"127.0.0.1:99999\"\n");
}

TEST(CommandLine, RefusesAPortInUseAndStartsNoOtherListener) {
  LoopbackSocket taken(true);
  ASSERT_TRUE(taken.fd);
  const std::string port = std::to_string(taken.port());
  EXPECT_EQ(refusal_for(R"({"listeners": [
      {"name": "free", "address": "127.0.0.1:0", "protocol": "echo"},
      {"name": "taken", "address": "127.0.0.1:)" +
                        port + R"(", "protocol": "echo"}]})"),
            "$.listeners[1].address: listener \"taken\" cannot listen on 127.0.0.1:" + port +
                ": bind: Address already in use (another socket listens there; servers meant to share a port set "
                "\"share_port\": true)\n");
}

std::string http_listener_with(const std::string& route) {
  return R"({"listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http", "routes": [)" + route +
         "]}]}";
}

TEST(CommandLine, RefusesAnUnknownHandler) {
  EXPECT_EQ(refusal_for(http_listener_with(R"({"path": "/", "handler": "txet"})")),
            "$.listeners[0].routes[0].handler: unknown handler \"txet\"; expected one of \"echo\", \"health\", "
            "\"json\", \"metrics\", \"proxy\", \"pubsub\", \"static\", \"status\", \"text\", \"websocket_echo\"\n");
}

TEST(CommandLine, RefusesAHandlerParamOfTheWrongType) {
  EXPECT_EQ(refusal_for(http_listener_with(R"({"path": "/", "handler": "text", "with": {"body": 12}})")),
            "$.listeners[0].routes[0].with.body: expected a string, got 12\n");
  // The deprecated flat form: the same error, at the key beside the route keys.
  EXPECT_EQ(refusal_for(http_listener_with(R"({"path": "/", "handler": "text", "body": 12})")),
            "$.listeners[0].routes[0].body: expected a string, got 12\n");
}

TEST(CommandLine, RefusesAKeyTheHandlerDoesNotTake) {
  EXPECT_EQ(refusal_for(http_listener_with(R"({"path": "/", "handler": "text", "with": {"body": "x", "bodyy": "y"}})")),
            "$.listeners[0].routes[0].with.bodyy: unknown key for handler \"text\"; expected one of \"body\", "
            "\"content_type\", \"status\"\n");
  EXPECT_EQ(refusal_for(http_listener_with(R"({"path": "/", "handler": "text", "body": "x", "bodyy": "y"})")),
            "$.listeners[0].routes[0].bodyy: unknown key for handler \"text\"; expected one of \"method\", "
            "\"path\", \"handler\", \"compress\", \"body\", \"content_type\", \"status\"\n");
}

TEST(CommandLine, RefusesABadPathPattern) {
  EXPECT_EQ(refusal_for(http_listener_with(R"({"path": "/a/*/b", "handler": "health"})")),
            "$.listeners[0].routes[0].path: '*' must be the last segment of a path pattern\n");
}

TEST(CommandLine, RefusesABadMethod) {
  EXPECT_EQ(refusal_for(http_listener_with(R"({"path": "/", "method": "get", "handler": "health"})")),
            "$.listeners[0].routes[0].method: expected an HTTP method such as \"GET\", \"*\" for any, or an array "
            "of methods, got \"get\"\n");
}

TEST(CommandLine, RefusesAStaticRootThatDoesNotExist) {
  EXPECT_EQ(refusal_for(http_listener_with(R"({"path": "/*", "handler": "static", "with": {"root": "/nonexistent/www"}})")),
            "$.listeners[0].routes[0].with.root: cannot open \"/nonexistent/www\" as a folder: No such file or "
            "directory\n");
}

TEST(CommandLine, CheckConfigValidatesRoutesToo) {
  TempDir dir;
  const std::string path = dir.write("bad.json", http_listener_with(R"({"path": "/", "handler": "nope"})"));
  const RunResult run = run_tiffany({"--check-config", "--config", path});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("unknown handler \"nope\""), std::string::npos) << run.err;
}

TEST(CommandLine, RefusesABadUpstreamAndAProxyRouteNamingNoUpstream) {
  EXPECT_EQ(refusal_for(R"({"upstreams": {"app": {"servers": [{"address": "127.0.0.1:9001", "weight": 0}]}},
      "listeners": [{"name": "e", "address": "127.0.0.1:0", "protocol": "echo"}]})"),
            "$.upstreams.app.servers[0].weight: expected an integer from 1 to 1000, got 0\n");
  EXPECT_EQ(refusal_for(R"({"upstreams": {"app": {"servers": ["127.0.0.1:9001"]}},
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http", "routes": [
        {"path": "/app/*", "handler": "proxy", "with": {"upstream": "ap"}}]}]})"),
            "$.listeners[0].routes[0].with.upstream: no upstream named \"ap\"; defined: app\n");
}

TEST(CommandLine, CheckConfigAcceptsAnUpstreamsSection) {
  TempDir dir;
  const std::string path = dir.write("up.json", R"({"upstreams": {"app": {"servers": ["127.0.0.1:9001",
      {"address": "[::1]:9002", "weight": 2, "backup": true}], "balance": {"hash": "header:X-User"},
      "health": {"path": "/health", "rise": 2, "fall": 3}, "retry_budget": {"percent": 20, "min_concurrent": 3}}},
    "listeners": [{"name": "e", "address": "127.0.0.1:0", "protocol": "echo"}]})");
  const RunResult run = run_tiffany({"--check-config", "--config", path});
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST(CommandLine, RefusesAMissingConfigFile) {
  const RunResult run = run_tiffany({"--config", "/nonexistent/tiffany.json"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "tiffany: config error: /nonexistent/tiffany.json: $: cannot read the file: No such file or directory\n");
}

}  // namespace
}  // namespace tiffany::testing

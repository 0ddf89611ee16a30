// Handler plugins end to end: the SDK installed to a prefix, the example
// plugins built out of tree against it, loaded by the installed binary; and
// every load error refused with one clear line.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <tiffany/handlers/plugin_api.hpp>

#include "server_process.hpp"
#include "support/loopback_socket.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

RunResult curl(const std::string& url) { return run_program("curl", {"-sS", "-i", "--max-time", "20", url}); }

// The SDK installed to a prefix and the example plugins built out of tree
// against it: made once for the suite by the CTest fixture InstalledSdk.SetUp
// (tests/integration/install_sdk_for_tests.sh), read-only here.
class InstalledSdk : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string dir = under_test(TIFFANY_INSTALLED_SDK_DIR);
    prefix_ = dir + "/prefix";
    plugins_ = dir + "/my-plugins/build";
    setup_failures_.clear();
    if (!fs::exists(dir + "/ready")) {
      setup_failures_ = "no installed SDK in " + dir + ": run these tests through ctest, whose fixture " +
                        "InstalledSdk.SetUp makes it (tests/integration/install_sdk_for_tests.sh)";
    }
  }
  // Why here: a failure recorded in SetUpTestSuite shows up as skipped tests.
  void SetUp() override { ASSERT_TRUE(setup_failures_.empty()) << setup_failures_; }

  static std::string prefix_;
  static std::string plugins_;
  static std::string setup_failures_;
};

std::string InstalledSdk::prefix_;
std::string InstalledSdk::plugins_;
std::string InstalledSdk::setup_failures_;

// The installed headers, relative to include/tiffany/, sorted.
std::vector<std::string> installed_headers(const std::string& prefix) {
  const fs::path root = prefix + "/include/tiffany";
  std::vector<std::string> headers;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) headers.push_back(fs::relative(entry.path(), root).string());
  }
  std::sort(headers.begin(), headers.end());
  return headers;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// No hand list: what is installed is what the layout rule names, and the
// internals the rule leaves out are not there.
TEST_F(InstalledSdk, InstallsExactlyTheHeadersTheLayoutRuleNames) {
  const RunResult rule = run_program(std::string(TIFFANY_SOURCE_DIR) + "/cmake/sdk_headers.sh", {TIFFANY_SOURCE_DIR});
  ASSERT_EQ(rule.exit_code, 0) << rule.err;
  const std::vector<std::string> expected = lines_of(rule.out);
  EXPECT_GE(expected.size(), 60u);
  EXPECT_EQ(installed_headers(prefix_), expected);
  for (const char* internal : {"http/engine/request_parser.hpp", "server/http/router.hpp",
                               "reactor/internal/uring_reactor.hpp", "conf/config.hpp",
                               "handlers/engine/plugin_loader.hpp", "handlers/builtin/static_handler.hpp",
                               "handlers/middleware/builtin/cors_middleware.hpp", "server/server.hpp"}) {
    EXPECT_FALSE(fs::exists(prefix_ + "/include/tiffany/" + internal)) << internal << " leaked into the SDK";
  }
}

// Each header, included by its <tiffany/…> name with only the install's
// include root on the path, compiles alone: nothing it needs is missing or
// spelled the in-tree way.
TEST_F(InstalledSdk, EachInstalledHeaderCompilesAloneFromTheIncludeRoot) {
  TempDir scratch;
  for (const std::string& header : installed_headers(prefix_)) {
    const std::string unit = scratch.write("only.cpp", "#include <tiffany/" + header + ">\n");
    const RunResult run = run_program(
        "c++", {"-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I" + prefix_ + "/include", unit}, 120s);
    EXPECT_EQ(run.exit_code, 0) << header << " does not compile on its own:\n" << run.err;
  }
}

// The C and C++ toolchain's packages: libc, the kernel's headers, GCC's and
// libstdc++'s (any version).
bool is_toolchain_package(const std::string& name) {
  const auto starts = [&name](std::string_view prefix) { return name.rfind(prefix, 0) == 0; };
  const auto ends = [&name](std::string_view suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return name == "libc6-dev" || name == "linux-libc-dev" || (starts("libstdc++-") && ends("-dev")) ||
         (starts("libgcc-") && ends("-dev")) || starts("gcc-");
}

// Every file the public headers pull in comes from the SDK itself, from the
// C and C++ toolchain, or from a Debian package the installed
// TiffanyConfig.cmake declares (and finds): a new dependency of a public
// header fails here until find_package(Tiffany) knows it.
TEST_F(InstalledSdk, EveryLibraryThePublicHeadersIncludeIsDeclaredByFindPackage) {
  TempDir scratch;
  std::string all;
  for (const std::string& header : installed_headers(prefix_)) all += "#include <tiffany/" + header + ">\n";
  const RunResult deps =
      run_program("c++", {"-std=c++20", "-M", "-I" + prefix_ + "/include", scratch.write("all.cpp", all)}, 120s);
  ASSERT_EQ(deps.exit_code, 0) << deps.err;
  std::vector<std::string> outside;  // files from outside the SDK, canonical
  std::istringstream words(deps.out);
  for (std::string word; words >> word;) {
    if (word == "\\" || word.back() == ':' || word.find(".cpp") != std::string::npos) continue;
    const std::string path = fs::weakly_canonical(word).string();
    if (path.rfind(fs::weakly_canonical(prefix_).string(), 0) != 0) outside.push_back(path);
  }
  ASSERT_FALSE(outside.empty());
  std::vector<std::string> query{"-S"};
  query.insert(query.end(), outside.begin(), outside.end());
  const RunResult owners = run_program("dpkg", query, 60s);
  ASSERT_EQ(owners.exit_code, 0) << "a file no package owns:\n" << owners.err;

  fs::path config_path;
  for (const auto& entry : fs::recursive_directory_iterator(prefix_)) {
    if (entry.path().filename() == "TiffanyConfig.cmake") config_path = entry.path();
  }
  ASSERT_FALSE(config_path.empty()) << "no TiffanyConfig.cmake installed";
  std::ifstream config_file(config_path);
  const std::string config((std::istreambuf_iterator<char>(config_file)), std::istreambuf_iterator<char>());
  const std::string marker = "set(TIFFANY_SDK_HEADER_PACKAGES ";
  const std::size_t declared_at = config.find(marker);
  ASSERT_NE(declared_at, std::string::npos) << "TiffanyConfig.cmake declares no TIFFANY_SDK_HEADER_PACKAGES";
  const std::size_t list_at = declared_at + marker.size();
  const std::string declared = config.substr(list_at, config.find(')', list_at) - list_at);
  std::set<std::string> needed;
  for (const std::string& line : lines_of(owners.out)) {  // "pkg[:arch][, pkg…]: /path"
    std::istringstream packages(line.substr(0, line.find(": ")));
    for (std::string one; std::getline(packages, one, ',');) {
      one = one.substr(one.find_first_not_of(' '));
      one = one.substr(0, one.find(':'));
      if (!is_toolchain_package(one)) needed.insert(one);
    }
  }
  EXPECT_FALSE(needed.empty()) << "picojson, at least, is a dependency of the public headers";
  std::set<std::string> listed;
  std::istringstream names(declared);
  for (std::string name; names >> name;) listed.insert(name);
  for (const std::string& package : needed) {
    EXPECT_TRUE(listed.count(package) == 1)
        << "a public header includes a file of " << package << ", which TiffanyConfig.cmake does not declare";
  }
}

TEST_F(InstalledSdk, InstallsTheTestKitLibraryAndItsHeaders) {
  EXPECT_TRUE(fs::exists(prefix_ + "/lib/libtiffany_testkit.a") || fs::exists(prefix_ + "/lib64/libtiffany_testkit.a"));
  for (const char* header : {"handlers/testkit/plugin_harness.hpp", "handlers/testkit/request_builder.hpp",
                             "handlers/testkit/websocket_client.hpp", "handlers/pubsub.hpp",
                             "handlers/plugin_context.hpp", "handlers/plugin_logger.hpp", "http/json_body.hpp",
                             "http/multipart.hpp", "http/cookies.hpp"}) {
    EXPECT_TRUE(fs::exists(prefix_ + "/include/tiffany/" + header)) << header;
  }
}

// The example project's kv_test: a plugin's unit tests written against the
// installed test kit alone (Tiffany::testkit), built out of tree, run here.
TEST_F(InstalledSdk, APluginsUnitTestsBuiltAgainstTheInstalledTestKitPass) {
  ASSERT_TRUE(fs::exists(plugins_ + "/kv_test")) << "the example project did not build kv_test (GoogleTest missing?)";
  const RunResult run = run_program(plugins_ + "/kv_test", {}, 120s);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("[  PASSED  ] 6 tests."), std::string::npos) << run.out;
}

// The example project's chat_test: WebSocket handlers on the SDK's pub/sub, tested with the
// installed test kit's scripted WebSockets (PluginHarness::open_websocket), out of tree.
TEST_F(InstalledSdk, AWebSocketPluginsUnitTestsBuiltAgainstTheInstalledTestKitPass) {
  ASSERT_TRUE(fs::exists(plugins_ + "/chat_test")) << "the example project did not build chat_test";
  const RunResult run = run_program(plugins_ + "/chat_test", {}, 120s);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("[  PASSED  ] 4 tests."), std::string::npos) << run.out;
}

class PluginServer : public InstalledSdk {
 protected:
  void SetUp() override {
    InstalledSdk::SetUp();
    ASSERT_TRUE(upstream_.fd.valid());
    int closed_port = 0;
    {
      const LoopbackSocket closed(false);  // a free port nothing listens on
      closed_port = closed.port();
    }
    const std::string config = R"({"plugins": [")" + plugins_ + R"(/libhello.so", ")" + plugins_ +
                               R"(/libfanout.so", ")" + plugins_ + R"(/libkv.so", ")" + plugins_ +
                               R"(/libprobe.so"], "listeners": [{"name": "web", "address": "127.0.0.1:0",
        "protocol": "http", "routes": [
          {"method": "GET", "path": "/probe/up", "handler": "probe.check", "host": "localhost", "port": )" +
                               std::to_string(upstream_.port()) + R"(},
          {"method": "GET", "path": "/probe/down", "handler": "probe.check", "host": "127.0.0.1", "port": )" +
                               std::to_string(closed_port) + R"(},
          {"method": "GET", "path": "/hello/:name", "handler": "hello.greet", "with": {"greeting": "Hi"}},
          {"method": "GET", "path": "/fail", "handler": "hello.fail"},
          {"method": "GET", "path": "/fanout", "handler": "fanout.sleepers", "children": 10, "delay_ms": 100},
          {"method": "GET", "path": "/kv/:key", "handler": "kv.get"},
          {"method": "PUT", "path": "/kv/:key", "handler": "kv.put", "max_ttl_ms": 60000},
          {"method": "DELETE", "path": "/kv/:key", "handler": "kv.delete"},
          {"method": "GET", "path": "/guarded/:key", "handler": "kv.get",
           "middleware": [{"use": "kv.auth", "token": "0123456789abcdef"}]},
          {"method": "PUT", "path": "/guarded/:key", "handler": "kv.put", "with": {"max_ttl_ms": 1000},
           "middleware": [{"use": "kv.auth", "token": "0123456789abcdef"}]},
          {"method": "GET", "path": "/plaintext", "handler": "text", "body": "built-in"}]}]})";
    // The installed binary: exactly what an SDK user runs.
    server_ = std::make_unique<ServerProcess>(config, std::vector<std::string>{}, prefix_ + "/bin/tiffany");
    base_ = "http://127.0.0.1:" + std::to_string(server_->port_of("web"));
  }
  LoopbackSocket upstream_{true};  // what probe.check connects to
  std::unique_ptr<ServerProcess> server_;
  std::string base_;
};

TEST_F(PluginServer, APluginConnectsOutThroughTheSdk) {
  const RunResult up = curl(base_ + "/probe/up");
  EXPECT_NE(up.out.find("HTTP/1.1 200 OK"), std::string::npos) << up.out << server_->err();
  EXPECT_NE(up.out.find(R"("peer":"127.0.0.1:)" + std::to_string(upstream_.port()) + R"(")"), std::string::npos)
      << up.out;
  const RunResult down = curl(base_ + "/probe/down");
  EXPECT_NE(down.out.find("HTTP/1.1 502 Bad Gateway"), std::string::npos) << down.out;
  EXPECT_NE(down.out.find(R"("kind":"refused")"), std::string::npos) << down.out;
}

TEST_F(PluginServer, ServesPluginRoutesWithParamsAndQuery) {
  const RunResult run = curl(base_ + "/hello/Ada?lang=fr");
  EXPECT_NE(run.out.find("HTTP/1.1 200 OK"), std::string::npos) << run.out << server_->err();
  EXPECT_NE(run.out.find(R"({"greeting":"Hi, Ada!","lang":"fr"})"), std::string::npos) << run.out;
  EXPECT_NE(curl(base_ + "/plaintext").out.find("built-in"), std::string::npos);  // built-ins still there
}

TEST_F(PluginServer, FanOutRunsItsChildrenConcurrently) {
  // The control: the same request with one child, curl's start and all.
  auto started = std::chrono::steady_clock::now();
  const RunResult one = curl(base_ + "/fanout?n=1");
  const auto one_took = std::chrono::steady_clock::now() - started;
  EXPECT_NE(one.out.find(R"("sum_of_squares":0)"), std::string::npos) << one.out;
  started = std::chrono::steady_clock::now();
  const RunResult run = curl(base_ + "/fanout");
  const auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_NE(run.out.find(R"("sum_of_squares":285)"), std::string::npos) << run.out;
  EXPECT_GE(elapsed, 100ms);
  // Why against one child: one by one, the other nine would add their 900 ms to what one child takes,
  // and what a loaded machine adds (curl's start, the scheduling) is in both.
  EXPECT_LT(elapsed - one_took, 900ms) << "10 children of 100 ms each took as long as running them one by one";
}

// fanout.upstreams calls real upstreams through the SDK's HttpClient: a
// second Tiffany (the installed binary) with a fast route and a slow one,
// and a port nothing listens on.
class FanOutUpstreams : public InstalledSdk {
 protected:
  void SetUp() override {
    InstalledSdk::SetUp();
    const std::string upstream_config = R"({"plugins": [")" + plugins_ + R"(/libfanout.so"], "listeners": [
        {"name": "app", "address": "127.0.0.1:0", "protocol": "http", "routes": [
          {"method": "GET", "path": "/fast", "handler": "text", "body": "fast answer"},
          {"method": "GET", "path": "/slow", "handler": "fanout.sleepers", "children": 1, "delay_ms": )" +
                                       std::to_string(kSlowMs.count()) + R"(}]}]})";
    upstream_ = std::make_unique<ServerProcess>(upstream_config, std::vector<std::string>{}, prefix_ + "/bin/tiffany");
    const std::string app = "http://127.0.0.1:" + std::to_string(upstream_->port_of("app"));
    int closed_port = 0;
    {
      const LoopbackSocket closed(false);  // a free port nothing listens on
      closed_port = closed.port();
    }
    const std::string down = "http://127.0.0.1:" + std::to_string(closed_port) + "/";
    const std::string config = R"({"plugins": [")" + plugins_ + R"(/libfanout.so"], "listeners": [
        {"name": "web", "address": "127.0.0.1:0", "protocol": "http", "routes": [
          {"method": "GET", "path": "/all", "handler": "fanout.upstreams",
           "upstreams": [")" + app + R"(/fast", ")" + app + R"(/slow", ")" + app + R"(/slow?again", ")" + down + R"("]},
          {"method": "GET", "path": "/first", "handler": "fanout.upstreams", "mode": "race",
           "upstreams": [")" + app + R"(/slow", ")" + app + R"(/fast"]}]}]})";
    server_ = std::make_unique<ServerProcess>(config, std::vector<std::string>{}, prefix_ + "/bin/tiffany");
    base_ = "http://127.0.0.1:" + std::to_string(server_->port_of("web"));
    // picojson writes "/" as "\/" in strings.
    for (const char c : app) app_json_ += c == '/' ? std::string("\\/") : std::string(1, c);
  }
  // How long the upstream's slow route waits. Why a second: the timing checks below compare
  // with it, and a loaded machine's noise must stay well under it.
  static constexpr std::chrono::milliseconds kSlowMs{1000};

  // How long curl takes to fetch the upstream's `path` directly: a control measured beside each check.
  std::chrono::steady_clock::duration direct(const std::string& path) {
    const auto started = std::chrono::steady_clock::now();
    const RunResult run = curl("http://127.0.0.1:" + std::to_string(upstream_->port_of("app")) + path);
    const auto took = std::chrono::steady_clock::now() - started;
    EXPECT_NE(run.out.find("HTTP/1.1 200 OK"), std::string::npos) << run.out;
    return took;
  }

  std::unique_ptr<ServerProcess> upstream_;
  std::unique_ptr<ServerProcess> server_;
  std::string base_;
  std::string app_json_;  // the upstream's base URL as the JSON answer spells it
};

TEST_F(FanOutUpstreams, GatherCallsEveryUpstreamAtOnceAndReportsEachOutcome) {
  const auto one_slow = direct("/slow");
  const auto started = std::chrono::steady_clock::now();
  const RunResult run = curl(base_ + "/all");
  const auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_NE(run.out.find("HTTP/1.1 200 OK"), std::string::npos) << run.out << server_->err();
  EXPECT_NE(run.out.find(R"({"bytes":11,"status":200,"url":")" + app_json_ + R"(\/fast"})"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(R"("status":200,"url":")" + app_json_ + R"(\/slow"})"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(R"("status":200,"url":")" + app_json_ + R"(\/slow?again"})"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(R"({"error":"connect",)"), std::string::npos) << run.out;
  EXPECT_GE(elapsed, kSlowMs);
  // Why against one slow call: called one after the other, the second slow upstream would add its
  // whole delay to what one takes; at once, only the fan-out's own work. Half the delay between.
  EXPECT_LT(elapsed - one_slow, kSlowMs / 2) << "the upstreams were not called concurrently";
}

TEST_F(FanOutUpstreams, RaceTakesTheFirstAnswerAndCancelsTheSlowUpstream) {
  const auto one_fast = direct("/fast");
  const auto started = std::chrono::steady_clock::now();
  const RunResult run = curl(base_ + "/first");
  const auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_NE(run.out.find("HTTP/1.1 200 OK"), std::string::npos) << run.out << server_->err();
  EXPECT_NE(run.out.find(R"("winner":")" + app_json_ + R"(\/fast")"), std::string::npos) << run.out;
  // Why against a direct fast call: a race that waited for the slow upstream would take its whole
  // delay more than that; one that did not, about as long. Half the delay between.
  EXPECT_LT(elapsed - one_fast, kSlowMs / 2) << "the race waited for the slow upstream";
  // The server goes on answering after the canceled request's connection closed.
  EXPECT_NE(curl(base_ + "/first").out.find("HTTP/1.1 200 OK"), std::string::npos);
}

TEST_F(PluginServer, AThrowingPluginHandlerGives500ALogLineAndTheServerGoesOn) {
  const RunResult failed = curl(base_ + "/fail");
  EXPECT_NE(failed.out.find("HTTP/1.1 500 Internal Server Error"), std::string::npos) << failed.out;
  const RunResult next = curl(base_ + "/hello/again");
  EXPECT_NE(next.out.find("Hi, again!"), std::string::npos) << next.out;
  EXPECT_NE(server_->err().find("handler \"hello.fail\" from plugin " + plugins_ +
                                "/libhello.so failed on GET /fail: hello.fail always fails"),
            std::string::npos)
      << server_->err();
}

RunResult curl_with(const std::string& method, const std::string& url, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"-sS", "-i", "--max-time", "20", "-X", method};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(url);
  return run_program("curl", args);
}

TEST_F(PluginServer, KvAuthMiddlewareGuardsWritesAndTellsTheHandlerWho) {
  std::vector<std::string> put = {"-H", "Content-Type: application/json", "--data-binary", "7"};
  const RunResult refused = curl_with("PUT", base_ + "/guarded/g", put);
  EXPECT_NE(refused.out.find("HTTP/1.1 401 Unauthorized"), std::string::npos) << refused.out << server_->err();
  EXPECT_NE(refused.out.find("\r\nWWW-Authenticate: Bearer realm=\"kv\"\r\n"), std::string::npos) << refused.out;
  std::vector<std::string> wrong = put;
  wrong.insert(wrong.end(), {"-H", "Authorization: Bearer 0123456789abcdeX"});
  EXPECT_NE(curl_with("PUT", base_ + "/guarded/g", wrong).out.find("HTTP/1.1 401"), std::string::npos);
  EXPECT_NE(curl(base_ + "/guarded/g").out.find("HTTP/1.1 404 Not Found"), std::string::npos)
      << "reads pass the middleware; nothing was stored";
  put.insert(put.end(), {"-H", "Authorization: Bearer 0123456789abcdef", "-H", "X-Request-Id: guarded-put"});
  const RunResult stored = curl_with("PUT", base_ + "/guarded/g", put);
  EXPECT_NE(stored.out.find("HTTP/1.1 204 No Content"), std::string::npos) << stored.out << server_->err();
  EXPECT_NE(curl(base_ + "/guarded/g").out.find(R"({"key":"g","value":7})"), std::string::npos);
}

TEST_F(PluginServer, KvStoresGetsAndDeletesJsonValuesThroughTheRealBinary) {
  const std::vector<std::string> json = {"-H", "Content-Type: application/json"};
  std::vector<std::string> put = json;
  put.insert(put.end(), {"--data-binary", R"({"n": [1, 2]})"});
  EXPECT_NE(curl_with("PUT", base_ + "/kv/a", put).out.find("HTTP/1.1 204 No Content"), std::string::npos)
      << server_->err();
  const RunResult got = curl(base_ + "/kv/a");
  EXPECT_NE(got.out.find("HTTP/1.1 200 OK"), std::string::npos) << got.out;
  EXPECT_NE(got.out.find(R"({"key":"a","value":{"n":[1,2]}})"), std::string::npos) << got.out;

  std::vector<std::string> bad = json;
  bad.insert(bad.end(), {"--data-binary", "{\"n\": tru}"});
  const RunResult refused = curl_with("PUT", base_ + "/kv/b", bad);
  EXPECT_NE(refused.out.find("HTTP/1.1 400 Bad Request"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find(R"({"error":"bad JSON at line 1, column 10: unexpected \"}\""})"), std::string::npos)
      << refused.out;

  const RunResult deleted = curl_with("DELETE", base_ + "/kv/a", {"-H", "X-Request-Id: kv-delete-1"});
  EXPECT_NE(deleted.out.find("HTTP/1.1 204 No Content"), std::string::npos) << deleted.out;
  EXPECT_NE(curl(base_ + "/kv/a").out.find("HTTP/1.1 404 Not Found"), std::string::npos);
  EXPECT_NE(curl_with("DELETE", base_ + "/kv/a").out.find("HTTP/1.1 404 Not Found"), std::string::npos);
  // The plugin's Logger writes to the error log, tagged with plugin, route and request id.
  EXPECT_NE(server_->err().find("[info] worker "), std::string::npos) << server_->err();
  EXPECT_NE(server_->err().find(": plugin \"kv\" on route /kv/:key: deleted \"a\", request_id: kv-delete-1\n"),
            std::string::npos)
      << server_->err();
}

TEST_F(PluginServer, KvExpiresKeysOnItsWorkersSweeper) {
  std::vector<std::string> put = {"-H", "Content-Type: application/json", "--data-binary", "1"};
  ASSERT_NE(curl_with("PUT", base_ + "/kv/short?ttl_ms=200", put).out.find("204"), std::string::npos);
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (server_->err().find("plugin \"kv\": swept 1 expired keys") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_NE(server_->err().find("plugin \"kv\": swept 1 expired keys"), std::string::npos) << server_->err();
  EXPECT_NE(curl(base_ + "/kv/short").out.find("HTTP/1.1 404 Not Found"), std::string::npos);
}

TEST_F(PluginServer, KvStartsBeforeServingAndStopsWorkerByWorkerThenWholeDuringTheDrain) {
  std::vector<std::string> put = {"-H", "Content-Type: application/json", "--data-binary", "\"kept\""};
  ASSERT_NE(curl_with("PUT", base_ + "/kv/k", put).out.find("204"), std::string::npos);
  server_->send_signal(SIGTERM);
  EXPECT_EQ(server_->wait_for_exit(20s), 0) << server_->err();
  const std::string err = server_->err();
  const auto ready = err.find("plugin \"kv\": store ready for 10000 keys on ");
  const auto serving = err.find("listener \"web\" serving");
  const auto draining = err.find("SIGTERM received, draining");
  const auto drains = err.find("plugin \"kv\": worker 0 drains after ");
  const auto canceled = err.find("worker 0: plugin \"kv\": sweeper canceled");
  const auto stopping = err.find("plugin \"kv\": stopping with 1 keys");
  const auto stopped = err.find("[notice] stopped");
  ASSERT_NE(ready, std::string::npos) << err;
  ASSERT_NE(stopping, std::string::npos) << err;
  ASSERT_NE(stopped, std::string::npos) << err;
  EXPECT_LT(ready, serving) << err;
  ASSERT_NE(drains, std::string::npos) << err;
  ASSERT_NE(canceled, std::string::npos) << err;
  EXPECT_LT(draining, drains) << err;    // stop_worker runs when the drain begins,
  EXPECT_LT(drains, canceled) << err;    // then the worker's background task is canceled,
  EXPECT_LT(canceled, stopping) << err;  // and the plugin stops once every worker ended
  EXPECT_LT(stopping, stopped) << err;
}

// Starts the in-tree binary with `plugins` and `route`; returns its one-line refusal.
std::string refusal_for(const std::vector<std::string>& plugins, const std::string& route) {
  std::string list;
  for (const std::string& plugin : plugins) list += (list.empty() ? "\"" : ", \"") + plugin + "\"";
  TempDir dir;
  const std::string config = dir.write(
      "tiffany.json", R"({"plugins": [)" + list + R"(], "listeners": [{"name": "web", "address": "127.0.0.1:0",
      "protocol": "http", "routes": [)" + route + "]}]}");
  const RunResult run = run_tiffany({"--config", config});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  const std::string prefix = "tiffany: config error: " + config + ": ";
  EXPECT_EQ(run.err.rfind(prefix, 0), 0u) << run.err;
  return run.err.substr(std::min(prefix.size(), run.err.size()));
}

const std::string kHealthRoute = R"({"path": "/", "handler": "health"})";
const std::string kPlugins = under_test(TIFFANY_PLUGIN_DIR);
const std::string kBroken = under_test(TIFFANY_TEST_PLUGIN_DIR);

TEST(PluginLoading, RefusesAMissingFile) {
  EXPECT_EQ(refusal_for({"/nonexistent/libnothing.so"}, kHealthRoute),
            "$.plugins[0]: cannot find plugin file \"/nonexistent/libnothing.so\"\n");
}

TEST(PluginLoading, RefusesAFileThatIsNotALibrary) {
  TempDir dir;
  const std::string fake = dir.write("libfake.so", "not an ELF file");
  const std::string error = refusal_for({fake}, kHealthRoute);
  EXPECT_EQ(error.rfind("$.plugins[0]: cannot load \"" + fake + "\": ", 0), 0u) << error;
}

TEST(PluginLoading, RefusesALibraryThatIsNotAPlugin) {
  EXPECT_EQ(refusal_for({kBroken + "/libno_entry_point_plugin.so"}, kHealthRoute),
            "$.plugins[0]: \"" + kBroken +
                "/libno_entry_point_plugin.so\" is not a Tiffany plugin: it does not export tiffany_plugin_init\n");
}

TEST(PluginLoading, RefusesAnAbiMismatchNamingBothVersions) {
  EXPECT_EQ(refusal_for({kBroken + "/libabi_mismatch_plugin.so"}, kHealthRoute),
            "$.plugins[0]: \"" + kBroken + "/libabi_mismatch_plugin.so\" was built for plugin ABI " +
                std::to_string(kPluginAbiNumber + 41) + ", but this tiffany speaks plugin ABI " +
                std::to_string(kPluginAbiNumber) + "; rebuild it against this tiffany's SDK\n");
}

TEST(PluginLoading, RefusesAPluginBuiltWithOtherFlagsNamingThem) {
  EXPECT_EQ(refusal_for({kBroken + "/libold_string_abi_plugin.so"}, kHealthRoute),
            "$.plugins[0]: \"" + kBroken +
                "/libold_string_abi_plugin.so\" was built with -D_GLIBCXX_USE_CXX11_ABI=0 (GCC's old std::string and "
                "std::list), which this tiffany was not; rebuild it with the SDK's settings (find_package(Tiffany) and "
                "tiffany_add_plugin add none of these)\n");
}

TEST(PluginLoading, RefusesADuplicateHandlerName) {
  EXPECT_EQ(refusal_for({kBroken + "/libname_clash_plugin.so"}, kHealthRoute),
            "$.plugins[0]: \"" + kBroken +
                "/libname_clash_plugin.so\" refused to load: handler \"text\" is already registered by built-in\n");
  EXPECT_EQ(refusal_for({kPlugins + "/libhello.so", kPlugins + "/libhello.so"}, kHealthRoute),
            "$.plugins[1]: \"" + kPlugins + "/libhello.so\" refused to load: handler \"hello.greet\" is already " +
                "registered by " + kPlugins + "/libhello.so\n");
}

TEST(PluginLoading, RefusesAPluginThatRefusesToLoad) {
  EXPECT_EQ(refusal_for({kBroken + "/librefusing_plugin.so"}, kHealthRoute),
            "$.plugins[0]: \"" + kBroken + "/librefusing_plugin.so\" refused to load: license key missing\n");
}

TEST(PluginLoading, RefusesAnUnknownHandlerNameListingThePluginOnes) {
  const std::string error = refusal_for({kPlugins + "/libhello.so"}, R"({"path": "/", "handler": "hello.nope"})");
  EXPECT_EQ(error.rfind("$.listeners[0].routes[0].handler: unknown handler \"hello.nope\"; expected one of", 0), 0u)
      << error;
  EXPECT_NE(error.find("\"hello.greet\""), std::string::npos) << error;
}

TEST(PluginLoading, ShowsTheFactorysMessageForBadParams) {
  EXPECT_EQ(refusal_for({kPlugins + "/libhello.so"}, R"({"path": "/", "handler": "hello.greet", "with": {"greeting": 5}})"),
            "$.listeners[0].routes[0].with.greeting: expected a string, got 5\n");
}

TEST(PluginLoading, ResolvesRelativePathsAgainstTheConfigFile) {
  TempDir dir;
  fs::copy_file(kPlugins + "/libhello.so", dir.path() + "/libhello.so");
  const std::string config = dir.write("tiffany.json", R"({"plugins": ["libhello.so"], "listeners": [
      {"name": "web", "address": "127.0.0.1:0", "protocol": "http",
       "routes": [{"path": "/hi/:name", "handler": "hello.greet"}]}]})");
  const RunResult run = run_tiffany({"--check-config", "--config", config});
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

}  // namespace
}  // namespace tiffany::testing

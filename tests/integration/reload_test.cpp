// Reload (SIGHUP), binary upgrade (SIGUSR2) and socket activation through the real binary: new
// routes and a rebuilt plugin take effect, a request in flight finishes on the old configuration,
// a bad config or a broken new binary keeps the old one serving, the listening socket stays the
// same, and wrk sees no failed request across reloads and an upgrade.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "echo_client.hpp"
#include "reload_support.hpp"
#include "server_process.hpp"
#include "support/child_process.hpp"
#include "support/test_certificate.hpp"
#include "support/loopback_socket.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kPluginDir = under_test(TIFFANY_TEST_PLUGIN_DIR);

std::string site(const std::string& hello_body, const std::string& extra_routes = "",
                 const std::string& address = "127.0.0.1:0") {
  return R"({"workers": 2, "listeners": [{"name": "web", "address": ")" + address + R"(", "protocol": "http",
      "routes": [
      {"method": "GET", "path": "/hello", "handler": "text", "with": {"body": ")" +
         hello_body + R"("}},
      {"method": "POST", "path": "/echo", "handler": "echo"})" +
         extra_routes + "]}]}";
}

// Reads from `fd` up to and including the first empty line (an interim response's end); what came
// before it if the peer closed or 5 s passed.
std::string read_until_blank_line(int fd) {
  std::string got;
  const auto give_up = Clock::now() + 5s;
  while (got.find("\r\n\r\n") == std::string::npos && Clock::now() < give_up) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, 100) <= 0) continue;
    char byte;
    if (::recv(fd, &byte, 1, 0) != 1) break;
    got += byte;
  }
  return got;
}

TEST(Reload, SighupServesTheNewRoutesOnTheSameSocketWhileAnOpenConnectionFinishesOnTheOld) {
  ServerProcess server(site("one"));
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  const UniqueFd kept = connect_loopback(port);
  ASSERT_EQ(body_of(get_on(kept.get(), "/hello")), "one");
  // A request in flight across the reload: its body is half sent.
  // Why wait for "100 Continue": it says the old configuration read the head; a connection still
  // in the listening socket's queue at the reload would be the new configuration's.
  const UniqueFd uploading = connect_loopback(port);
  ASSERT_TRUE(send_all(uploading.get(),
                       "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n"));
  ASSERT_EQ(read_until_blank_line(uploading.get()), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(send_all(uploading.get(), "hello"));

  server.rewrite_config(site("two", R"(, {"method": "GET", "path": "/added", "handler": "text", "with": {"body": "new"}})"));
  server.send_signal(SIGHUP);
  ASSERT_TRUE(wait_for_log(server, "reloaded: configuration 2 serves")) << server.err();

  // New connections, on the port the old configuration bound (port 0 then), see the new routes.
  EXPECT_EQ(body_of(get(port, "/hello")), "two");
  EXPECT_EQ(body_of(get(port, "/added")), "new");
  // The upload finishes on the old configuration, which then closes its connection.
  ASSERT_TRUE(send_all(uploading.get(), "world"));
  const std::string echoed = read_response(uploading.get());
  EXPECT_EQ(body_of(echoed), "helloworld");
  EXPECT_TRUE(says_close(echoed)) << echoed;
  // The idle keep-alive connection was closed after the drain's grace (100 ms), or, had its
  // request come sooner, answered by the old configuration: it never sees the new routes.
  const std::string late = get_on(kept.get(), "/added");
  EXPECT_TRUE(late.empty() || (body_of(late) != "new" && says_close(late))) << late;
  EXPECT_TRUE(wait_for_log(server, "configuration 1 drained and ended")) << server.err();
  EXPECT_EQ(body_of(get(port, "/hello")), "two");
}

TEST(Reload, ABadConfigIsRefusedWithItsPathAndTheOldOneServesOn) {
  ServerProcess server(site("one"));
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  server.rewrite_config(R"({"listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "routes": [{"method": "GET", "path": "/hello", "handler": "text", "with": {"bodyy": "x"}}]}]})");
  server.send_signal(SIGHUP);
  ASSERT_TRUE(wait_for_log(server, "reload refused, serving on with the previous config: config error: " +
                                       server.config_path() + ": $.listeners[0].routes[0].with.body: missing required key"))
      << server.err();
  EXPECT_EQ(body_of(get(port, "/hello")), "one");
  // A handler that does not exist, and a listener on an address another socket holds, are refused too.
  const LoopbackSocket taken(true);  // a socket of this test's, without SO_REUSEPORT
  ASSERT_TRUE(taken.fd);
  const int taken_port = taken.port();
  server.rewrite_config(R"({"listeners": [
      {"name": "web", "address": "127.0.0.1:0", "protocol": "http", "routes": []},
      {"name": "other", "address": "127.0.0.1:)" + std::to_string(taken_port) + R"(", "protocol": "echo"}]})");
  server.send_signal(SIGHUP);
  ASSERT_TRUE(wait_for_log(server, "$.listeners[1].address: listener \"other\" cannot listen on")) << server.err();
  EXPECT_EQ(body_of(get(port, "/hello")), "one");
  // And the next good config is taken.
  server.rewrite_config(site("three"));
  server.send_signal(SIGHUP);
  ASSERT_TRUE(wait_for_log(server, "reloaded: configuration 2 serves")) << server.err();
  EXPECT_EQ(body_of(get(port, "/hello")), "three");
}

TEST(Reload, APluginRebuiltBetweenReloadsAnswersWithItsNewCode) {
  const TempDir dir;
  const std::string plugin = dir.path() + "/libversioned.so";
  std::filesystem::copy_file(kPluginDir + "/libversioned_v1_plugin.so", plugin);
  const std::string config = R"({"plugins": [")" + plugin + R"("], "workers": 2, "listeners": [{"name": "web",
      "address": "127.0.0.1:0", "protocol": "http", "routes": [
      {"method": "GET", "path": "/version", "handler": "versioned.hello"}]}]})";
  ServerProcess server(config);
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  ASSERT_EQ(body_of(get(port, "/version")), "version 1\n");

  // Unchanged file: the same code.
  server.send_signal(SIGHUP);
  ASSERT_TRUE(wait_for_log(server, "reloaded: configuration 2 serves")) << server.err();
  EXPECT_EQ(body_of(get(port, "/version")), "version 1\n");

  // Installed the way `install` and package managers do: a new file renamed over the old.
  std::filesystem::copy_file(kPluginDir + "/libversioned_v2_plugin.so", plugin + ".new");
  std::filesystem::rename(plugin + ".new", plugin);
  server.send_signal(SIGHUP);
  ASSERT_TRUE(wait_for_log(server, "reloaded: configuration 3 serves")) << server.err();
  EXPECT_EQ(body_of(get(port, "/version")), "version 2\n");
  // Unchanged since: the same copy again, not one more.
  server.send_signal(SIGHUP);
  ASSERT_TRUE(wait_for_log(server, "reloaded: configuration 4 serves")) << server.err();
  EXPECT_EQ(body_of(get(port, "/version")), "version 2\n");
  int copies = 0;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/" + std::to_string(server.pid()) + "/fd")) {
    std::error_code error;
    if (std::filesystem::read_symlink(fd.path(), error).string().starts_with("/memfd:tiffany-plugin")) ++copies;
  }
  EXPECT_EQ(copies, 1);
  server.send_signal(SIGTERM);
  EXPECT_EQ(server.wait_for_exit(10s), 0) << server.err();
}

TEST(Reload, WrkSeesNoFailedRequestAcrossThreeReloads) {
  ServerProcess server(site("one"));
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  std::thread reloads([&] {
    for (int i = 0; i < 3; ++i) {
      std::this_thread::sleep_for(1s);
      server.rewrite_config(site(i % 2 == 0 ? "two" : "one"));
      server.send_signal(SIGHUP);
    }
  });
  const WrkResult wrk = run_wrk("http://127.0.0.1:" + std::to_string(port) + "/hello", 4s);
  reloads.join();
  EXPECT_TRUE(wait_for_log(server, "reloaded: configuration 4 serves")) << server.err();
  EXPECT_EQ(wrk.errors, 0) << wrk.out;
  EXPECT_GT(wrk.requests, 1000) << wrk.out;
  EXPECT_TRUE(wait_for_log(server, "configuration 3 drained and ended")) << server.err();
}

// The certificate's subject a TLS client is shown on 127.0.0.1:`port`.
std::string served_subject(int port) {
  const RunResult shown = run_program(
      "sh", {"-c", "openssl s_client -connect 127.0.0.1:" + std::to_string(port) +
                       " -servername localhost </dev/null 2>/dev/null | openssl x509 -noout -subject"});
  return shown.out;
}

TEST(Reload, ANewCertificateIsServedToNewConnections) {
  const TempDir dir;
  const TestCertificate first = write_test_certificate(dir.path(), "first", "first.example", {"localhost"});
  const TestCertificate second = write_test_certificate(dir.path(), "second", "second.example", {"localhost"});
  const auto config = [](const TestCertificate& cert) {
    return R"({"workers": 2, "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
        "tls": {"cert": ")" + cert.cert_file + R"(", "key": ")" + cert.key_file + R"("},
        "routes": [{"method": "GET", "path": "/hello", "handler": "text", "with": {"body": "one"}}]}]})";
  };
  ServerProcess server(config(first));
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  EXPECT_NE(served_subject(port).find("CN = first.example"), std::string::npos) << served_subject(port);
  server.rewrite_config(config(second));
  server.send_signal(SIGHUP);
  ASSERT_TRUE(wait_for_log(server, "reloaded: configuration 2 serves")) << server.err();
  EXPECT_NE(served_subject(port).find("CN = second.example"), std::string::npos) << served_subject(port);
}

// ---------------------------------------------------------------- tiffany --signal

TEST(SignalCommand, SignalsTheServerItsPidFileNamesAndTheFileGoesWithIt) {
  const TempDir dir;
  const std::string pid_file = dir.path() + "/tiffany.pid";
  std::string config = site("one");
  config.insert(1, R"("pid_file": ")" + pid_file + R"(", )");
  ServerProcess server(config);
  ASSERT_GT(server.port_of("web"), 0);
  ASSERT_TRUE(wait_for_log(server, "listener \"web\" serving"));
  const auto deadline = Clock::now() + 5s;
  while (read_file(pid_file).empty() && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(read_file(pid_file), std::to_string(server.pid()) + "\n");

  const RunResult reload = run_tiffany({"--config", server.config_path(), "--signal", "reload"});
  EXPECT_EQ(reload.exit_code, 0) << reload.err;
  EXPECT_EQ(reload.out, "tiffany: sent SIGHUP to process " + std::to_string(server.pid()) + "\n");
  EXPECT_TRUE(wait_for_log(server, "reloaded: configuration 2 serves")) << server.err();
  const RunResult reopen = run_tiffany({"--config", server.config_path(), "--signal", "reopen"});
  EXPECT_EQ(reopen.exit_code, 0) << reopen.err;
  EXPECT_TRUE(wait_for_log(server, "SIGUSR1: ")) << server.err();
  const RunResult stop = run_tiffany({"--config", server.config_path(), "--signal", "stop"});
  EXPECT_EQ(stop.exit_code, 0) << stop.err;
  EXPECT_EQ(server.wait_for_exit(10s), 0) << server.err();
  EXPECT_FALSE(std::filesystem::exists(pid_file)) << "removed at exit";

  const RunResult gone = run_tiffany({"--config", server.config_path(), "--signal", "stop"});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_NE(gone.err.find("cannot read the pid file " + pid_file), std::string::npos) << gone.err;
}

TEST(SignalCommand, RefusesAConfigWithoutPidFileAnUnknownNameAndAReloadOfABadConfig) {
  const TempDir dir;
  const std::string plain = dir.write("plain.json", site("one"));
  const RunResult no_pid_file = run_tiffany({"--config", plain, "--signal", "reload"});
  EXPECT_EQ(no_pid_file.exit_code, 1);
  EXPECT_EQ(no_pid_file.err, "tiffany: config error: " + plain +
                                 ": $.pid_file: missing: --signal finds the running server by its pid file\n");
  const RunResult unknown = run_tiffany({"--config", plain, "--signal", "restart"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(unknown.err.starts_with("tiffany: unknown --signal 'restart'\n")) << unknown.err;
  // A reload is checked as --check-config checks, before any signal is sent.
  const std::string bad = dir.write("bad.json", R"({"pid_file": "/nonexistent/tiffany.pid", "listeners": [
      {"name": "web", "address": "127.0.0.1:0", "protocol": "http",
       "routes": [{"method": "GET", "path": "/", "handler": "statik"}]}]})");
  const RunResult refused = run_tiffany({"--config", bad, "--signal", "reload"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("$.listeners[0].routes[0].handler"), std::string::npos) << refused.err;
  // A stale pid file naming another program: nothing is signaled.
  const pid_t other = spawn_child("sleep", {"30"});
  ASSERT_GT(other, 0);
  const std::string stale = dir.path() + "/stale.pid";
  std::ofstream(stale) << other << "\n";
  std::string config = site("one");
  config.insert(1, R"("pid_file": ")" + stale + R"(", )");
  const RunResult not_ours = run_tiffany({"--config", dir.write("stale.json", config), "--signal", "stop"});
  EXPECT_EQ(not_ours.exit_code, 1);
  EXPECT_NE(not_ours.err.find("runs sleep, not tiffany: the pid file is stale"), std::string::npos) << not_ours.err;
  EXPECT_TRUE(running(other)) << "the other program was not signaled";
  ::kill(other, SIGKILL);
  ::waitpid(other, nullptr, 0);
}

// ---------------------------------------------------------------- SIGUSR2: binary upgrade

// A server started from its own copy of the binary, on a fixed port (the new
// process reads the config itself, and port 0 would get it a new one).
class Upgrade : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::copy_file(tiffany_binary(), binary_);
    server_ = std::make_unique<ServerProcess>(site("one", "", "127.0.0.1:" + std::to_string(port_)),
                                              std::vector<std::string>{}, binary_);
    ASSERT_EQ(server_->port_of("web"), port_);
  }

  // Installs a shell script as the "new binary".
  void install_script(const std::string& name, const std::string& text) const {
    const std::string script = dir_.write(name, text);
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    install_file(script, binary_);
  }

  const TempDir dir_;
  const std::string binary_ = dir_.path() + "/tiffany";
  const int port_ = free_port();
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(Upgrade, Sigusr2HandsTheSocketsToTheNewBinaryWhichServesWhileWrkSeesNoFailedRequest) {
  ServerProcess& server = *server_;
  std::thread upgrader([&] {
    std::this_thread::sleep_for(1s);
    install_file(tiffany_binary(), binary_);  // the new binary
    server.send_signal(SIGUSR2);
  });
  const WrkResult wrk = run_wrk("http://127.0.0.1:" + std::to_string(port_) + "/hello", 4s);
  upgrader.join();
  EXPECT_EQ(wrk.errors, 0) << wrk.out;
  EXPECT_GT(wrk.requests, 1000) << wrk.out;
  const StopOnExit next(upgraded_pid(server.err()));
  ASSERT_GT(next.pid, 0) << server.err();
  // The old process drained and exited; the new one serves on the same port from the new file.
  EXPECT_EQ(server.wait_for_exit(15s), 0) << server.err();
  EXPECT_TRUE(wait_for_log(server, "upgrade: process " + std::to_string(next.pid) + " serves")) << server.err();
  EXPECT_TRUE(running(next.pid));
  EXPECT_EQ(std::filesystem::read_symlink("/proc/" + std::to_string(next.pid) + "/exe").string(), binary_);
  EXPECT_EQ(body_of(get(port_, "/hello")), "one");
}

TEST_F(Upgrade, ANewBinaryThatFailsToStartLeavesTheOldOneServing) {
  ServerProcess& server = *server_;
  install_script("broken", "#!/bin/sh\nexit 3\n");
  server.send_signal(SIGUSR2);
  ASSERT_TRUE(wait_for_log(server, "upgrade failed, serving on: the new process")) << server.err();
  EXPECT_TRUE(wait_for_log(server, "exited with status 3 before it served")) << server.err();
  EXPECT_EQ(body_of(get(port_, "/hello")), "one") << server.err();
  // The next, working binary takes over.
  install_file(tiffany_binary(), binary_);
  server.send_signal(SIGUSR2);
  EXPECT_EQ(server.wait_for_exit(15s), 0) << server.err();
  const StopOnExit next(upgraded_pid(server.err().substr(server.err().find("upgrade failed"))));
  ASSERT_GT(next.pid, 0) << server.err();
  EXPECT_EQ(body_of(get(port_, "/hello")), "one");
}

TEST_F(Upgrade, AShutdownWhileTheNewProcessStartsStopsItToo) {
  ServerProcess& server = *server_;
  install_script("silent", "#!/bin/sh\nexec sleep 60\n");  // a "new binary" that never says it serves
  server.send_signal(SIGUSR2);
  ASSERT_TRUE(wait_for_log(server, "upgrade: started")) << server.err();
  const StopOnExit successor(upgraded_pid(server.err()));
  ASSERT_GT(successor.pid, 0);
  EXPECT_TRUE(running(successor.pid));
  server.send_signal(SIGTERM);
  EXPECT_EQ(server.wait_for_exit(10s), 0) << server.err();
  EXPECT_NE(server.err().find("upgrade abandoned for the shutdown: stopped process " + std::to_string(successor.pid)),
            std::string::npos)
      << server.err();
  EXPECT_FALSE(running(successor.pid));
}

// The descriptors a program holds open after exec: "ls -l /proc/PID/fd" lines, number to target.
std::map<int, std::string> descriptors_listed(const std::string& listing) {
  std::map<int, std::string> result;
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t arrow = line.find(" -> ");
    if (arrow == std::string::npos) continue;
    const std::size_t number = line.rfind(' ', arrow - 1) + 1;
    result[std::stoi(line.substr(number, arrow - number))] = line.substr(arrow + 4);
  }
  return result;
}

// The new binary inherits the sockets and the readiness pipe it is told of, and nothing else:
// not what the old process held without close-on-exec (c-ares's sockets; here a file its own
// parent left open to it). The "new binary" is a script that lists what it inherited, then execs
// the real one.
TEST_F(Upgrade, TheNewBinaryInheritsOnlyTheSocketsItIsToldOfAndTheReadinessPipe) {
  server_.reset();
  const std::string leaked_file = dir_.write("leaked", "");
  const int leaked = ::open(leaked_file.c_str(), O_RDONLY);  // no O_CLOEXEC: the server inherits it
  ASSERT_GE(leaked, 0);
  server_ = std::make_unique<ServerProcess>(site("one", "", "127.0.0.1:" + std::to_string(port_)),
                                            std::vector<std::string>{}, binary_);
  ::close(leaked);
  ServerProcess& server = *server_;
  ASSERT_EQ(server.port_of("web"), port_);
  // The control: the old process holds it.
  ASSERT_EQ(std::filesystem::read_symlink("/proc/" + std::to_string(server.pid()) + "/fd/" + std::to_string(leaked)),
            leaked_file);

  const std::string listing = dir_.path() + "/inherited";
  install_script("lister", "#!/bin/sh\nls -l /proc/self/fd >" + listing + ".fd\necho \"$TIFFANY_LISTEN_FDS,$" +
                               "TIFFANY_UPGRADE_READY_FD\" >" + listing + ".told\nexec " + tiffany_binary() +
                               " \"$@\"\n");
  server.send_signal(SIGUSR2);
  EXPECT_EQ(server.wait_for_exit(15s), 0) << server.err();
  const StopOnExit next(upgraded_pid(server.err()));
  ASSERT_GT(next.pid, 0) << server.err();
  EXPECT_EQ(body_of(get(port_, "/hello")), "one");

  std::set<int> told;
  std::istringstream numbers(read_file(listing + ".told"));
  for (std::string number; std::getline(numbers, number, ',');) told.insert(std::stoi(number));
  EXPECT_EQ(told.size(), 3u) << "two workers' sockets and the pipe";
  std::set<int> inherited;
  for (const auto& [fd, target] : descriptors_listed(read_file(listing + ".fd"))) {
    EXPECT_NE(target, leaked_file) << "descriptor " << fd;
    // Why /proc/self: ls inherits what an exec inherits, as the new binary does; it adds the
    // folder it reads (a target under /proc), and the shell's own descriptors (its script, its
    // saved output) are close-on-exec.
    if (fd > 2 && !target.starts_with("/proc/")) inherited.insert(fd);
  }
  EXPECT_EQ(inherited, told) << read_file(listing + ".fd");
}

// ---------------------------------------------------------------- socket activation

TEST(SocketActivation, AListenerTakesTheSocketSystemdPassesAndItsWorkersShareIt) {
  const int port = free_port();
  const std::string address = "127.0.0.1:" + std::to_string(port);
  ServerProcess server({"systemd-socket-activate", "-l", address},
                       R"({"workers": 2, "listeners": [{"name": "web", "address": ")" + address + R"(",
                           "protocol": "http", "routes": [
                           {"method": "GET", "path": "/hello", "handler": "text", "body": "activated"}]}]})");
  // systemd-socket-activate starts Tiffany at the first connection, which waits in the socket's
  // backlog meanwhile and is then served.
  ASSERT_TRUE(wait_for_log(server, "Listening on " + address)) << server.err();
  EXPECT_EQ(body_of(get(port, "/hello")), "activated") << server.err();
  ASSERT_EQ(server.port_of("web"), port) << server.err();
  for (int i = 0; i < 20; ++i) EXPECT_EQ(body_of(get(port, "/hello")), "activated");
  // The socket is systemd's (no SO_REUSEPORT): had Tiffany bound its own, its probe would have
  // found the address taken and refused to start.
  EXPECT_EQ(server.err().find("cannot listen"), std::string::npos) << server.err();
  // A reload keeps it.
  server.send_signal(SIGHUP);
  ASSERT_TRUE(wait_for_log(server, "reloaded: configuration 2 serves")) << server.err();
  EXPECT_EQ(body_of(get(port, "/hello")), "activated");
}

}  // namespace
}  // namespace tiffany::testing

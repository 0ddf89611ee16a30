// The echo server end to end: the real binary, real sockets, a temp config.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "echo_client.hpp"
#include "server_process.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

const std::string kEchoConfig = R"({"listeners": [{"name": "echo", "address": "127.0.0.1:0", "protocol": "echo"}]})";

std::string random_bytes(std::mt19937& rng, std::size_t size) {
  std::string bytes(size, '\0');
  std::uniform_int_distribution<int> byte(0, 255);
  for (char& c : bytes) c = static_cast<char>(byte(rng));
  return bytes;
}

TEST(EchoServer, StartupNamesTheBackendAndEachListener) {
  ServerProcess server(R"({"listeners": [
      {"name": "first", "address": "127.0.0.1:0", "protocol": "echo"},
      {"name": "second", "address": "127.0.0.1:0", "protocol": "echo"}]})");
  EXPECT_GT(server.port_of("first"), 0);
  EXPECT_GT(server.port_of("second"), 0);
  const char* backend = std::getenv("TIFFANY_TEST_BACKEND");
  const std::string expected = std::string("I/O backend ") + (backend != nullptr ? backend : "io_uring");
  EXPECT_NE(server.err().find(expected), std::string::npos) << server.err();
}

TEST(EchoServer, EchoesRandomPayloadsFrom200ConcurrentClientsByteForByte) {
  ServerProcess server(kEchoConfig);
  const int port = server.port_of("echo");
  ASSERT_GT(port, 0);
  constexpr int kClients = 200;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      std::mt19937 rng(static_cast<unsigned>(1000 + i));
      const std::size_t size = std::uniform_int_distribution<std::size_t>(1, 1 << 20)(rng);
      const std::string payload = random_bytes(rng, size);
      UniqueFd fd = connect_loopback(port);
      if (!fd || echo_roundtrip(fd.get(), payload) != payload) ++mismatches;
    });
  }
  for (auto& client : clients) client.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(EchoServer, AHalfClosedClientGetsEverythingBackThenEof) {
  ServerProcess server(kEchoConfig);
  const int port = server.port_of("echo");
  std::mt19937 rng(7);
  const std::string payload = random_bytes(rng, 300'000);
  UniqueFd fd = connect_loopback(port);
  ASSERT_TRUE(fd);
  EXPECT_EQ(echo_roundtrip(fd.get(), payload, /*half_close=*/true), payload);
}

TEST(EchoServer, PeerResetsDoNotDisturbOtherClients) {
  ServerProcess server(kEchoConfig);
  const int port = server.port_of("echo");
  UniqueFd steady = connect_loopback(port);
  ASSERT_TRUE(steady);
  for (int i = 0; i < 50; ++i) {
    UniqueFd rude = connect_loopback(port);
    ASSERT_TRUE(rude);
    const std::string data(64 * 1024, 'r');
    ::send(rude.get(), data.data(), data.size(), MSG_NOSIGNAL);
    const linger abort_on_close{1, 0};  // close() sends RST
    ::setsockopt(rude.get(), SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
  }
  EXPECT_EQ(echo_roundtrip(steady.get(), "still here"), "still here");
  UniqueFd fresh = connect_loopback(port);
  EXPECT_EQ(echo_roundtrip(fresh.get(), "and new clients too"), "and new clients too");
}

TEST(EchoServer, ServesThousandsOfConcurrentConnections) {
  ServerProcess server(kEchoConfig);
  const int port = server.port_of("echo");
  constexpr int kConnections = 5000;
  std::vector<UniqueFd> connections;
  connections.reserve(kConnections);
  for (int i = 0; i < kConnections; ++i) {
    connections.push_back(connect_loopback(port));
    ASSERT_TRUE(connections.back()) << "connection " << i << " failed";
  }
  // Every connection is open at once; each must still be served.
  int wrong = 0;
  for (int i = 0; i < kConnections; ++i) {
    const std::string message = "message " + std::to_string(i);
    if (echo_roundtrip(connections[i].get(), message, false, 10s) != message) ++wrong;
  }
  EXPECT_EQ(wrong, 0);
}

TEST(EchoServer, SigtermClosesTheListenerAndExitsZero) {
  ServerProcess server(kEchoConfig);
  const int port = server.port_of("echo");
  UniqueFd idle = connect_loopback(port);  // an open connection must not block the exit
  ASSERT_TRUE(idle);
  EXPECT_EQ(echo_roundtrip(idle.get(), "x"), "x");
  server.send_signal(SIGTERM);
  EXPECT_EQ(server.wait_for_exit(5s), 0) << server.err();
  EXPECT_NE(server.err().find("SIGTERM received"), std::string::npos) << server.err();
  EXPECT_FALSE(connect_loopback(port)) << "the listener is still accepting";
}

TEST(EchoServer, SigintExitsZero) {
  ServerProcess server(kEchoConfig);
  ASSERT_GT(server.port_of("echo"), 0);
  server.send_signal(SIGINT);
  EXPECT_EQ(server.wait_for_exit(5s), 0) << server.err();
}

}  // namespace
}  // namespace tiffany::testing

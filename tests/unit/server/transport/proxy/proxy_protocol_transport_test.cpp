// ProxyProtocolTransport on every backend: what the inner transport gets after a header (peer, ProxyInfo, the bytes
// that followed left unread in the socket), and the connections it never gets (untrusted, malformed, silent).
#include "server/transport/proxy/proxy_protocol_transport.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <tiffany/coro/syscalls.hpp>

#include "server/transport/connection_tracker.hpp"
#include "support/socket_pair.hpp"
#include "unit/reactor/reactor_fixture.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using testing::SocketPair;

// The listener's own transport: records what it was handed, and what was left unread in the socket.
class RecordingTransport final : public Transport {
 public:
  Task<void> serve(UniqueFd, sockaddr_storage, ConnectionTracker::Slot) override {
    ADD_FAILURE() << "connections reach the inner transport through adopt()";
    co_return;
  }
  Task<void> adopt(ParkedConnection connection, ReadLease first, Scheduler::Clock::time_point) override {
    ++adopted;
    peer = connection.peer;
    handed = std::string(first.bytes());
    char buffer[256];
    const ssize_t n = ::recv(connection.socket.get(), buffer, sizeof buffer, MSG_DONTWAIT);
    if (n > 0) unread = std::string(buffer, static_cast<std::size_t>(n));
    if (connection.proxy) info = *connection.proxy;
    co_return;
  }
  const char* name() const noexcept override { return "recording"; }

  int adopted = 0;
  std::string peer;
  std::string handed;  // read already, handed over as the first input
  std::string unread;  // still in the socket
  std::optional<ProxyInfo> info;
};

sockaddr_storage ipv4(const char* address, int port) {
  sockaddr_storage storage{};
  auto& in4 = reinterpret_cast<sockaddr_in&>(storage);
  in4.sin_family = AF_INET;
  in4.sin_port = htons(static_cast<std::uint16_t>(port));
  inet_pton(AF_INET, address, &in4.sin_addr);
  return storage;
}

std::string u16(unsigned value) { return std::string{static_cast<char>(value >> 8), static_cast<char>(value & 0xFF)}; }
std::string tlv(unsigned type, const std::string& value) {
  return std::string(1, static_cast<char>(type)) + u16(static_cast<unsigned>(value.size())) + value;
}
std::string v2(unsigned command, unsigned family, const std::string& body) {
  return std::string("\r\n\r\n\0\r\nQUIT\n", 12) + static_cast<char>(0x20 | command) + static_cast<char>(family) +
         u16(static_cast<unsigned>(body.size())) + body;
}

// Whether `fd`'s peer has closed, waiting up to a second: EOF, or a reset
// (closing with the unread rest of a malformed header in the socket resets).
bool closed_by_peer(int fd) {
  pollfd ready{fd, POLLIN, 0};
  if (::poll(&ready, 1, 1000) != 1) return false;
  char byte;
  const ssize_t n = ::recv(fd, &byte, 1, MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

struct Rig {
  ConnectionTracker tracker{10};
  RecordingTransport* inner = nullptr;
  std::optional<ProxyProtocolTransport> transport;
  explicit Rig(std::chrono::milliseconds timeout = 1h) {
    auto recording = std::make_unique<RecordingTransport>();
    inner = recording.get();
    transport.emplace(std::move(recording), std::vector<CidrRange>{*CidrRange::parse("127.0.0.0/8")}, timeout,
                      &tracker, "test");
  }
};

class ProxyProtocolTransportTest : public ReactorTest {
 protected:
  // Serves one connection from `peer`, sends `chunks` on the client's end 20 ms apart, then lets `settle` pass.
  void run(Rig& rig, SocketPair& pair, sockaddr_storage peer, std::vector<std::string> chunks,
           std::chrono::milliseconds settle = 50ms) {
    auto body = [&]() -> Task<void> {
      co_await rig.transport->serve(std::move(pair.b), peer, ConnectionTracker::Slot(rig.tracker));
      for (const std::string& chunk : chunks) {
        ::send(pair.a.get(), chunk.data(), chunk.size(), MSG_NOSIGNAL);
        co_await Sleep{20ms};
      }
      co_await Sleep{settle};
      rig.transport->close_idle();
      Scheduler::current().stop();  // the park's reaper sleeps until its timeout
    };
    auto handle = scheduler().spawn(body());
    scheduler().run();
    handle.take_result();
  }
};
INSTANTIATE_TEST_SUITE_P(Backends, ProxyProtocolTransportTest, all_backends(), backend_name);

TEST_P(ProxyProtocolTransportTest, TheNamedClientBecomesThePeerAndNoBytePastTheHeaderIsRead) {
  Rig rig;
  SocketPair pair;
  const std::string source = std::string("\x20\x01\x0d\xb8", 4) + std::string(11, '\0') + '\x07';
  const std::string ssl = std::string("\x01\x00\x00\x00\x00", 5) + tlv(0x21, "TLSv1.3") + tlv(0x22, "client");
  const std::string header = v2(1, 0x21, source + source + u16(4242) + u16(443) + tlv(0x01, "h2") +
                                             tlv(0x02, "example.test") + tlv(0x20, ssl));
  run(rig, pair, ipv4("127.0.0.1", 5000), {header + "GET / HTTP/1.1\r\n"});
  ASSERT_EQ(rig.inner->adopted, 1);
  EXPECT_EQ(rig.inner->peer, "[2001:db8::7]:4242");
  EXPECT_EQ(rig.inner->handed, "");
  EXPECT_EQ(rig.inner->unread, "GET / HTTP/1.1\r\n");
  ASSERT_TRUE(rig.inner->info);
  const ProxyInfo& info = *rig.inner->info;
  EXPECT_EQ(info.version, 2);
  EXPECT_EQ(info.socket_peer, "127.0.0.1:5000");
  EXPECT_EQ(info.destination, "[2001:db8::7]:443");
  EXPECT_EQ(info.alpn, "h2");
  EXPECT_EQ(info.authority, "example.test");
  EXPECT_TRUE(info.ssl);
  EXPECT_TRUE(info.client_ssl);
  EXPECT_EQ(info.ssl_version, "TLSv1.3");
  EXPECT_EQ(info.ssl_cn, "client");
}

TEST_P(ProxyProtocolTransportTest, AHeaderInPiecesIsAwaitedAndWhatFollowsItsLastPieceStaysUnread) {
  Rig rig;
  SocketPair pair;
  run(rig, pair, ipv4("127.0.0.1", 5000), {"PROXY TCP4 203.0.113.7 ", "198.51.100.1 4242 80\r", "\n\x16\x03\x01"});
  ASSERT_EQ(rig.inner->adopted, 1);
  EXPECT_EQ(rig.inner->peer, "203.0.113.7:4242");
  EXPECT_EQ(rig.inner->handed, "");
  EXPECT_EQ(rig.inner->unread, "\x16\x03\x01");
  ASSERT_TRUE(rig.inner->info);
  EXPECT_EQ(rig.inner->info->version, 1);
  EXPECT_EQ(rig.inner->info->destination, "198.51.100.1:80");
}

TEST_P(ProxyProtocolTransportTest, AHeaderLongerThanOneReadBufferIsTakenInSeveralPeeks) {
  Rig rig;
  SocketPair pair;
  const std::string address = std::string("\xC0\x00\x02\x01\xC6\x33\x64\x07", 8) + u16(4242) + u16(443);
  const std::string header = v2(1, 0x11, address + tlv(0xEE, std::string(40'000, 'x')) + tlv(0x01, "h2"));
  run(rig, pair, ipv4("127.0.0.1", 5000), {header + "after"});
  ASSERT_EQ(rig.inner->adopted, 1);
  EXPECT_EQ(rig.inner->peer, "192.0.2.1:4242");
  EXPECT_EQ(rig.inner->unread, "after");
  ASSERT_TRUE(rig.inner->info);
  EXPECT_EQ(rig.inner->info->alpn, "h2");
}

TEST_P(ProxyProtocolTransportTest, LocalKeepsTheSocketPeer) {
  Rig rig;
  SocketPair pair;
  run(rig, pair, ipv4("127.0.0.1", 5000), {v2(0, 0x00, "") + "GET"});
  ASSERT_EQ(rig.inner->adopted, 1);
  EXPECT_EQ(rig.inner->peer, "127.0.0.1:5000");
  EXPECT_EQ(rig.inner->unread, "GET");
  ASSERT_TRUE(rig.inner->info);
  EXPECT_EQ(rig.inner->info->socket_peer, "127.0.0.1:5000");
  EXPECT_EQ(rig.inner->info->destination, "");
}

TEST_P(ProxyProtocolTransportTest, AnUntrustedPeerIsClosedUnread) {
  Rig rig;
  SocketPair pair;
  run(rig, pair, ipv4("192.0.2.1", 5000), {"PROXY UNKNOWN\r\n"});
  EXPECT_EQ(rig.inner->adopted, 0);
  EXPECT_TRUE(closed_by_peer(pair.a.get()));
  EXPECT_EQ(rig.tracker.size(), 0u);
}

TEST_P(ProxyProtocolTransportTest, AMalformedHeaderIsClosed) {
  Rig rig;
  SocketPair pair;
  run(rig, pair, ipv4("127.0.0.1", 5000), {"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n"});
  EXPECT_EQ(rig.inner->adopted, 0);
  EXPECT_TRUE(closed_by_peer(pair.a.get()));
  EXPECT_EQ(rig.tracker.size(), 0u);
}

TEST_P(ProxyProtocolTransportTest, ASilentOrUnfinishedHeaderTimesOut) {
  for (const char* sent : {"", "PROXY TCP4 "}) {
    Rig rig(40ms);
    SocketPair pair;
    run(rig, pair, ipv4("127.0.0.1", 5000), {sent}, 150ms);
    EXPECT_EQ(rig.inner->adopted, 0) << sent;
    EXPECT_TRUE(closed_by_peer(pair.a.get())) << sent;
    EXPECT_EQ(rig.tracker.size(), 0u) << sent;
  }
}

}  // namespace
}  // namespace tiffany

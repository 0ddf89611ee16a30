// ProxyProtocolTransport: the trust check at accept, a peeking park until the first bytes, the header taken exactly
// under its deadline.
#include "server/transport/proxy/proxy_protocol_transport.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/reactor/recv.hpp>

#include "server/log/error_log.hpp"
#include "server/transport/format_peer.hpp"
#include "server/transport/proxy/internal/proxy_header_parser.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany {
namespace {

constexpr std::chrono::seconds kLogInterval{10};

// The header park's OnTimeout: the proxy said nothing for the whole header timeout.
void count_silent_header(const ParkedConnection&) noexcept { count_timeout(TimeoutStage::header); }

// RecvPooled with MSG_PEEK: waits for bytes and copies them into a lent buffer, leaving them in the socket.
struct PeekPooled final : IoOperation {
  PeekPooled(int fd, ReadLease& lease) noexcept
      : IoOperation(IoRequest{.kind = IoKind::recv_pooled, .fd = fd, .length = kReadBufferSize, .flags = MSG_PEEK}),
        lease_(lease) {}
  IoResult await_resume() {
    const IoResult result = IoOperation::await_resume();
    lease_ = take_buffer();
    return result;
  }

 private:
  ReadLease& lease_;
};

Task<IoResult> peek_pooled(int fd, ReadLease& lease) { co_return co_await PeekPooled(fd, lease); }

// Receives exactly `size` bytes into `data` (bytes a peek already saw, so
// they are there): IoResult{0} once all are taken, else the error
// (ECONNRESET if the peer closed first).
Task<IoResult> take_exactly(int fd, char* data, std::size_t size) {
  std::size_t taken = 0;
  while (taken < size) {
    const IoResult got = co_await Recv(fd, data + taken, size - taken);
    if (!got) co_return got;
    if (got.bytes() == 0) co_return IoResult{-ECONNRESET};
    taken += got.bytes();
  }
  co_return IoResult{0};
}

std::unique_ptr<ProxyInfo> info_of(const proxy_protocol::ProxyHeader& header, const std::string& socket_peer) {
  auto info = std::make_unique<ProxyInfo>();
  info->version = header.version;
  info->socket_peer = socket_peer;
  if (!header.local) info->destination = format_peer(header.destination);
  info->alpn = header.alpn.view();
  info->authority = header.authority.view();
  info->ssl = header.ssl;
  info->ssl_client = header.ssl_client;
  info->client_ssl = (header.ssl_client & 0x01) != 0;
  info->ssl_verify = header.ssl_verify;
  info->ssl_version = header.ssl_version.view();
  info->ssl_cn = header.ssl_cn.view();
  return info;
}

}  // namespace

ProxyProtocolTransport::ProxyProtocolTransport(std::unique_ptr<Transport> inner, std::vector<CidrRange> trusted,
                                               std::chrono::milliseconds header_timeout, ConnectionTracker* tracker,
                                               std::string listener)
    : inner_(std::move(inner)),
      trusted_(std::move(trusted)),
      header_timeout_(header_timeout),
      listener_(std::move(listener)),
      headers_(
          header_timeout_, tracker,
          [this](ParkedConnection&& connection, ReadLease&& first, Scheduler::Clock::time_point accepted) {
            return read_header(std::move(connection), std::move(first), accepted);
          },
          &count_silent_header, MSG_PEEK) {}

bool ProxyProtocolTransport::trusted(const sockaddr_storage& peer) const noexcept {
  for (const CidrRange& range : trusted_) {
    if (range.contains(peer)) return true;
  }
  return false;
}

void ProxyProtocolTransport::warn(Warning& warning, const char* what, const std::string& peer, const char* detail) {
  const auto now = Scheduler::current().now();
  if (warning.last_line && now - *warning.last_line < kLogInterval) {
    ++warning.since_line;
    return;
  }
  warning.last_line = now;
  if (warning.since_line == 0) {
    error_log().log(LogLevel::warn, "listener \"%s\" closed a connection from %s: %s%s", listener_.c_str(),
                    peer.c_str(), what, detail);
  } else {
    error_log().log(LogLevel::warn, "listener \"%s\" closed a connection from %s: %s%s (and %zu more since the last "
                    "such line)", listener_.c_str(), peer.c_str(), what, detail, warning.since_line);
  }
  warning.since_line = 0;
}

Task<void> ProxyProtocolTransport::serve(UniqueFd socket, sockaddr_storage peer, ConnectionTracker::Slot slot) {
  if (!trusted(peer)) {
    // Why close unread: a PROXY header from anyone may claim any address,
    // and a client that is not the proxy has no business on this listener.
    warn(untrusted_, "not in proxy_protocol.trusted", format_peer(peer), "");
    co_return;  // `socket` closes here
  }
  headers_.park(ParkedConnection{std::move(socket), format_peer(peer), std::move(slot), nullptr, nullptr, false});
}

Task<void> ProxyProtocolTransport::adopt(ParkedConnection connection, ReadLease first,
                                         Scheduler::Clock::time_point accepted) {
  co_await inner_->adopt(std::move(connection), std::move(first), accepted);
}

void ProxyProtocolTransport::close_idle() noexcept {
  headers_.close_all();
  inner_->close_idle();
}

Task<void> ProxyProtocolTransport::read_header(ParkedConnection connection, ReadLease first,
                                               Scheduler::Clock::time_point accepted) {
  proxy_protocol::ProxyHeaderParser parser;
  Deadline deadline(accepted + header_timeout_);
  const int fd = connection.socket.get();
  ReadLease peeked = std::move(first);  // bytes still in the socket: the park peeked at them
  for (;;) {
    const proxy_protocol::ProxyHeaderParser::Result result = parser.feed(peeked.bytes());
    if (result.status == proxy_protocol::ProxyHeaderParser::Status::error) {
      warn(malformed_, "malformed PROXY protocol header: ", connection.peer, parser.error());
      co_return;
    }
    // Why peek, then take exactly the header's bytes (HAProxy's way): what
    // follows belongs to TLS or HTTP, which read it from the socket
    // themselves; the cost is one more receive per connection, never per request.
    Timed<IoResult> taken =
        co_await within(deadline, TimeoutStage::header, take_exactly(fd, peeked.data(), result.used));
    if (taken.timed_out() || !*taken) co_return;
    if (result.status == proxy_protocol::ProxyHeaderParser::Status::done) break;
    peeked.reset();
    Timed<IoResult> read = co_await within(deadline, TimeoutStage::header, peek_pooled(fd, peeked));
    if (read.timed_out()) co_return;
    const IoResult got = *read;
    if (!got || got.bytes() == 0) co_return;  // the proxy gave up before the header's end
  }
  peeked.reset();
  const proxy_protocol::ProxyHeader& header = parser.header();
  connection.proxy = info_of(header, connection.peer);
  if (!header.local) connection.peer = format_peer(header.source);
  co_await inner_->adopt(std::move(connection), ReadLease(), accepted);
}

}  // namespace tiffany

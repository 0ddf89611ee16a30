// Simulated WebSocket clients: RFC 6455 framing written here (masked, fragmented by seed), checked as they read.
#include "sim/peers/websocket_client.hpp"

#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/net/socket_stream.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "sim/peers/peer_connect.hpp"

namespace tiffany::sim {
namespace {

using namespace std::chrono_literals;

constexpr std::uint8_t kContinuation = 0x0, kText = 0x1, kBinary = 0x2, kClose = 0x8, kPing = 0x9, kPong = 0xA;

// RFC 6455 §1.3's example key and the accept it must get back.
constexpr std::string_view kKey = "dGhlIHNhbXBsZSBub25jZQ==";
constexpr std::string_view kAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

struct Message {
  std::uint8_t opcode = 0;  // kText, kBinary or kClose
  std::string payload;
};

// One client's side of a WebSocket connection over a simulated socket.
class Connection {
 public:
  Connection(World& world, SocketStream& stream) : world_(world), stream_(stream) {}

  // The opening handshake: true once answered 101 with the right accept.
  Task<bool> upgrade(const std::string& path) {
    const std::string request = "GET " + path +
                                " HTTP/1.1\r\nHost: sim\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                "Sec-WebSocket-Key: " +
                                std::string(kKey) + "\r\nSec-WebSocket-Version: 13\r\n\r\n";
    const IoResult written = co_await stream_.write(request.data(), request.size());
    if (!written) co_return false;
    std::size_t head_end = std::string::npos;
    while ((head_end = pending_.find("\r\n\r\n")) == std::string::npos) {
      const bool more = co_await read_more();
      if (!more) co_return false;
    }
    const std::string_view head(pending_.data(), head_end);
    const bool upgraded = head.starts_with("HTTP/1.1 101 ") && head.find(kAccept) != std::string_view::npos;
    pending_.erase(0, head_end + 4);
    co_return upgraded;
  }

  // Sends a message, masked, in one to three frames (the seed's cut).
  Task<bool> send(std::uint8_t opcode, std::string payload) {
    std::string wire;
    if (opcode == kText || opcode == kBinary) {
      const std::size_t frames = payload.size() < 2 ? 1 : world_.random().between(1, 3);
      std::size_t at = 0;
      for (std::size_t i = 0; i < frames; ++i) {
        const std::size_t size = i + 1 == frames ? payload.size() - at : world_.random().below(payload.size() - at + 1);
        wire += frame(i == 0 ? opcode : kContinuation, i + 1 == frames, std::string_view(payload).substr(at, size));
        at += size;
      }
    } else {
      wire = frame(opcode, true, payload);
    }
    const IoResult written = co_await stream_.write(wire.data(), wire.size());
    co_return static_cast<bool>(written);
  }

  // The next data message or close frame; pings are answered on the way.
  // Empty when the connection ended or the server broke the protocol (broken()).
  Task<std::optional<Message>> receive() {
    Message message;
    bool in_message = false;
    for (;;) {
      std::optional<std::pair<std::uint8_t, std::string>> next;  // FIN|opcode, payload
      while (!(next = take_frame())) {
        if (broken_) co_return std::nullopt;
        const bool more = co_await read_more();
        if (!more) co_return std::nullopt;
      }
      const bool fin = (next->first & 0x80) != 0;
      const std::uint8_t opcode = next->first & 0x0F;
      if (opcode == kPing) {
        if (close_sent_) continue;  // RFC 6455 §5.5.1: nothing follows our Close
        const bool answered = co_await send(kPong, std::move(next->second));
        if (!answered) co_return std::nullopt;
        continue;
      }
      if (opcode == kPong) continue;
      if (opcode == kClose) co_return Message{kClose, std::move(next->second)};
      if ((opcode == kContinuation) != in_message ||
          (opcode != kContinuation && opcode != kText && opcode != kBinary)) {
        broken_ = true;
        co_return std::nullopt;
      }
      if (!in_message) message.opcode = opcode;
      in_message = true;
      message.payload += next->second;
      if (fin) co_return message;
    }
  }

  // Our close (1000), then the server's close and its FIN; true when all came.
  Task<bool> close_handshake() {
    const bool sent = co_await send(kClose, std::string("\x03\xe8", 2));  // 1000
    close_sent_ = true;
    if (!sent) co_return false;
    for (;;) {
      std::optional<Message> message = co_await receive();
      if (!message) co_return false;
      if (message->opcode == kClose) break;  // data still on its way before it is dropped
    }
    char byte;
    const IoResult end = co_await stream_.read(&byte, 1);
    co_return end&& end.bytes() == 0;
  }

  bool broken() const noexcept { return broken_; }

 private:
  std::string frame(std::uint8_t opcode, bool fin, std::string_view payload) {
    std::string out;
    out += static_cast<char>((fin ? 0x80 : 0) | opcode);
    const std::uint64_t size = payload.size();
    if (size < 126) {
      out += static_cast<char>(0x80 | size);
    } else if (size <= 0xFFFF) {
      out += static_cast<char>(0x80 | 126);
      for (int shift = 8; shift >= 0; shift -= 8) out += static_cast<char>((size >> shift) & 0xFF);
    } else {
      out += static_cast<char>(0x80 | 127);
      for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((size >> shift) & 0xFF);
    }
    const std::uint64_t key = world_.random().next();
    char mask[4];
    for (int i = 0; i < 4; ++i) mask[i] = static_cast<char>((key >> (8 * i)) & 0xFF);
    out.append(mask, 4);
    for (std::size_t i = 0; i < payload.size(); ++i) out += static_cast<char>(payload[i] ^ mask[i % 4]);
    return out;
  }

  // A whole frame from what was read, or nothing yet. A masked frame from the
  // server breaks the protocol (RFC 6455 §5.1).
  std::optional<std::pair<std::uint8_t, std::string>> take_frame() {
    if (pending_.size() < 2) return std::nullopt;
    const auto byte = [this](std::size_t i) { return static_cast<std::uint8_t>(pending_[i]); };
    if ((byte(1) & 0x80) != 0) {
      broken_ = true;
      return std::nullopt;
    }
    std::uint64_t size = byte(1) & 0x7F;
    std::size_t at = 2;
    const std::size_t extra = size == 126 ? 2 : size == 127 ? 8 : 0;
    if (pending_.size() < at + extra) return std::nullopt;
    if (extra > 0) {
      size = 0;
      for (std::size_t i = 0; i < extra; ++i) size = (size << 8) | byte(at + i);
      at += extra;
    }
    if (pending_.size() - at < size) return std::nullopt;
    std::pair<std::uint8_t, std::string> frame{byte(0), pending_.substr(at, size)};
    pending_.erase(0, at + size);
    return frame;
  }

  Task<bool> read_more() {
    char buffer[16 * 1024];
    const IoResult read = co_await stream_.read(buffer, sizeof buffer);
    if (!read || read.bytes() == 0) co_return false;
    pending_.append(buffer, read.bytes());
    co_return true;
  }

  World& world_;
  SocketStream& stream_;
  std::string pending_;
  bool broken_ = false;
  bool close_sent_ = false;
};

// A payload of the seed's size: text is ASCII (valid UTF-8), binary any byte.
std::string payload_of(World& world, bool text) {
  const std::size_t size = world.random().chance(200'000) ? world.random().below(70'000) : world.random().below(300);
  std::string payload(size, '\0');
  for (char& c : payload) {
    c = static_cast<char>(text ? 'a' + world.random().below(26) : world.random().below(256));
  }
  return payload;
}

// Counts a wrong answer or a cut connection once the client stopped early.
void count_failure(const Connection& connection, WebSocketTally& tally) {
  ++(connection.broken() ? tally.wrong : tally.cut);
}

// Ends a client that is done: the close handshake, counted.
Task<void> close_and_count(Connection& connection, WebSocketTally& tally) {
  const bool closed = co_await connection.close_handshake();
  if (closed) {
    ++tally.closed;
  } else {
    count_failure(connection, tally);
  }
}

// A connection upgraded to WebSocket: its socket, stream and framing together.
struct Upgraded {
  Upgraded(World& world, UniqueFd fd) : socket(std::move(fd)), stream(socket.get()), connection(world, stream) {}
  UniqueFd socket;
  SocketStream stream;
  Connection connection;
};

// Connects and upgrades at `path`, counted (upgraded, or refused); null when either failed.
Task<std::unique_ptr<Upgraded>> open_upgraded(World& world, const char* ip, std::uint16_t port, std::string path,
                                              WebSocketTally& tally) {
  UniqueFd socket = co_await connect_to(ip, port);
  if (!socket) {
    ++tally.refused;
    co_return nullptr;
  }
  auto upgraded = std::make_unique<Upgraded>(world, std::move(socket));
  const bool ok = co_await upgraded->connection.upgrade(path);
  ++(ok ? tally.upgraded : tally.refused);
  if (!ok) co_return nullptr;
  co_return upgraded;
}

}  // namespace

Task<void> websocket_echo_client(World& world, const char* ip, std::uint16_t port, std::string path, int messages,
                                 bool leave_early, WebSocketTally& tally) {
  const CountsTheEnd<WebSocketTally> counts{tally};
  const std::unique_ptr<Upgraded> upgraded = co_await open_upgraded(world, ip, port, std::move(path), tally);
  if (!upgraded) co_return;
  Connection& connection = upgraded->connection;
  const int before_leaving = leave_early ? static_cast<int>(world.random().below(messages + 1)) : messages;
  for (int i = 0; i < before_leaving; ++i) {
    co_await Sleep{std::chrono::milliseconds(world.random().below(40))};
    const bool text = world.random().chance(500'000);
    std::string payload = payload_of(world, text);
    const bool sent = co_await connection.send(text ? kText : kBinary, payload);
    if (!sent) {
      ++tally.cut;
      co_return;
    }
    const std::optional<Message> echo = co_await connection.receive();
    if (!echo || echo->opcode == kClose) {
      count_failure(connection, tally);
      co_return;
    }
    ++(echo->opcode == (text ? kText : kBinary) && echo->payload == payload ? tally.echoed : tally.wrong);
  }
  if (leave_early) {
    upgraded->socket.reset();  // gone without a close frame: the server must let the session go
    ++tally.left;
    co_return;
  }
  co_await close_and_count(connection, tally);
}

Task<void> websocket_subscriber(World& world, const char* ip, std::uint16_t port, std::string path, std::string channel,
                                int expected, WebSocketTally& tally) {
  const CountsTheEnd<WebSocketTally> counts{tally};
  // Why counted however it goes: the publisher waits for every subscriber to settle.
  struct Settles {
    explicit Settles(WebSocketTally& counted) : tally(counted) {}
    Settles(const Settles&) = delete;
    Settles& operator=(const Settles&) = delete;
    ~Settles() { ++tally.settled; }
    WebSocketTally& tally;
  };
  std::optional<Settles> settles(std::in_place, tally);
  const std::unique_ptr<Upgraded> upgraded = co_await open_upgraded(world, ip, port, std::move(path), tally);
  if (!upgraded) co_return;
  Connection& connection = upgraded->connection;
  const bool sent = co_await connection.send(kText, "{\"subscribe\": \"" + channel + "\"}");
  if (!sent) {
    ++tally.cut;
    co_return;
  }
  const std::optional<Message> confirmed = co_await connection.receive();
  if (!confirmed) {
    count_failure(connection, tally);
    co_return;
  }
  if (confirmed->payload != "{\"subscribed\":\"" + channel + "\"}") {
    ++tally.wrong;
    co_return;
  }
  ++tally.subscribed;
  settles.reset();
  for (int i = 0; i < expected; ++i) {
    const std::optional<Message> message = co_await connection.receive();
    if (!message || message->opcode == kClose) {
      count_failure(connection, tally);
      co_return;
    }
    if (message->payload != "{\"channel\":\"" + channel + "\",\"data\":" + std::to_string(i) + "}") {
      ++tally.wrong;  // lost, repeated or out of order
      co_return;
    }
    ++tally.delivered;
  }
  co_await close_and_count(connection, tally);
}

Task<void> websocket_publisher(World& world, const char* ip, std::uint16_t port, std::string path, std::string channel,
                               int messages, std::function<bool()> may_publish, WebSocketTally& tally) {
  const CountsTheEnd<WebSocketTally> counts{tally};
  const std::unique_ptr<Upgraded> upgraded = co_await open_upgraded(world, ip, port, std::move(path), tally);
  if (!upgraded) co_return;
  Connection& connection = upgraded->connection;
  // Why wait: a message published before a subscription is confirmed need
  // not reach it, and the subscribers expect every one.
  while (!may_publish()) co_await Sleep{1ms};
  for (int i = 0; i < messages; ++i) {
    co_await Sleep{std::chrono::milliseconds(world.random().below(20))};
    const std::string publish = "{\"publish\": \"" + channel + "\", \"data\": " + std::to_string(i) + "}";
    const bool sent = co_await connection.send(kText, publish);
    if (!sent) {
      ++tally.cut;
      co_return;
    }
    ++tally.published;
  }
  co_await close_and_count(connection, tally);
}

}  // namespace tiffany::sim

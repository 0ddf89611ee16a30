// ws_connection.hpp: one client WebSocket on Tiffany's reactor for loadtest's clients (ws_load,
// ws_broadcast_load) — connect, the opening handshake, masked frames out, and the server's
// frames read back as events with the server's own MessageReader.
#pragma once

#include <netinet/in.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tiffany/reactor/recv.hpp>
#include <tiffany/reactor/send.hpp>

#include "http/engine/websocket/message_reader.hpp"
#include "loadtest/load_run.hpp"
#include "loadtest/ws_client.hpp"

namespace tiffany::loadtest {

/// A client's WebSocket connection, used by one task at a time (next() may send a pong).
/// The object must outlive every call's task.
class WsConnection {
 public:
  /// `seed` makes the connection's Sec-WebSocket-Key and masking keys differ from its
  /// neighbours'; a message from the server over `max_message_bytes` is an error event.
  WsConnection(std::uint32_t seed, std::size_t max_message_bytes)
      : seed_(seed),
        mask_state_(seed | 1),
        reader_(http::websocket::ReaderLimits{.max_message_bytes = max_message_bytes, .require_mask = false}),
        buffer_(std::max<std::size_t>(max_message_bytes + 16, 16384)) {}
  WsConnection(const WsConnection&) = delete;
  WsConnection& operator=(const WsConnection&) = delete;

  /// Connects to `server` (TCP_NODELAY) and upgrades on `path`, checking the 101 and its
  /// Sec-WebSocket-Accept (no extension offered). Returns "" or the problem.
  Task<std::string> open(const sockaddr_in& server, std::string_view path, const char* who) {
    fd_ = co_await connect_tcp(server, who);
    if (!fd_) co_return "connect failed";
    const std::string key = websocket_key(seed_);
    const bool sent = co_await send_all(upgrade_request(path, key));
    if (!sent) co_return "sending the upgrade failed";
    std::string head;
    std::size_t end = std::string::npos;
    while (end == std::string::npos) {
      const IoResult r = co_await Recv{fd_.get(), buffer_.data(), buffer_.size()};
      if (!r || r.bytes() == 0) co_return "the connection ended before the upgrade's answer";
      head.append(buffer_.data(), r.bytes());
      end = head.find("\r\n\r\n");
      if (end == std::string::npos && head.size() > 16384) co_return "an answer head over 16 KiB";
    }
    leftover_ = head.substr(end + 4);  // frames the server sent right after its 101
    pending_ = leftover_;
    head.resize(end + 4);
    co_return check_upgrade_response(head, key);
  }

  /// Sends one final frame of `opcode` carrying `payload`, masked; false when the send failed.
  Task<bool> send(http::websocket::Opcode opcode, std::string_view payload) {
    frame_.clear();
    append_masked_frame(frame_, opcode, payload, next_mask());
    co_return co_await send_all(frame_);
  }

  /// Sends a close frame with `code` (no reason); false when the send failed.
  Task<bool> send_close(std::uint16_t code) {
    frame_.clear();
    append_masked_close(frame_, code, next_mask());
    co_return co_await send_all(frame_);
  }

  /// The server's next whole message, its close frame or an error (a bad frame, or the
  /// connection ending: an error event saying so), reading the socket as needed. Pings are
  /// answered with their pong and pongs skipped.
  Task<http::websocket::Event> next() {
    namespace ws = http::websocket;
    for (;;) {
      if (pending_.empty()) {
        const IoResult r = co_await Recv{fd_.get(), buffer_.data(), buffer_.size()};
        if (!r || r.bytes() == 0) co_return ended("the server ended the connection");
        pending_ = std::string_view(buffer_.data(), r.bytes());
      }
      ws::Event event = reader_.next(pending_);
      if (event.kind == ws::Event::Kind::need_more || event.kind == ws::Event::Kind::pong) continue;
      if (event.kind != ws::Event::Kind::ping) co_return event;
      const bool answered = co_await send(ws::Opcode::pong, event.payload);
      if (!answered) co_return ended("sending a pong failed");
    }
  }

  int fd() const noexcept { return fd_.get(); }

 private:
  // xorshift32: a cheap masking key per frame (§5.3 wants them unpredictable to
  // intermediaries; a benchmark needs them to vary, which is what servers pay for).
  std::uint32_t next_mask() noexcept {
    mask_state_ ^= mask_state_ << 13;
    mask_state_ ^= mask_state_ >> 17;
    mask_state_ ^= mask_state_ << 5;
    return mask_state_;
  }

  Task<bool> send_all(std::string_view data) {
    for (std::size_t sent = 0; sent < data.size();) {
      const IoResult put = co_await Send{fd_.get(), data.data() + sent, data.size() - sent};
      if (!put) co_return false;
      sent += put.bytes();
    }
    co_return true;
  }

  static http::websocket::Event ended(std::string why) {
    http::websocket::Event event;
    event.kind = http::websocket::Event::Kind::error;
    event.why = std::move(why);
    return event;
  }

  std::uint32_t seed_;
  std::uint32_t mask_state_;
  UniqueFd fd_;
  http::websocket::MessageReader reader_;
  std::vector<char> buffer_;
  std::string leftover_;
  std::string_view pending_;  // received bytes the reader has not taken yet (in buffer_ or leftover_)
  std::string frame_;         // the frame being sent
};

}  // namespace tiffany::loadtest

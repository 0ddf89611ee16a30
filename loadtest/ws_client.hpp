// ws_client.hpp: the client's side of WebSocket (RFC 6455) for loadtest's clients — the
// opening handshake (a key, the upgrade request, checking the 101) and masked frames.
#pragma once

#include <array>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

#include "http/engine/websocket/frame.hpp"
#include "http/engine/websocket/handshake.hpp"

namespace tiffany::loadtest {

/// A Sec-WebSocket-Key: the base64 of 16 bytes made from `seed` (§4.1 asks for random
/// bytes; a benchmark needs them different per connection, not secret).
inline std::string websocket_key(std::uint64_t seed) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::array<unsigned char, 16> bytes{};
  for (unsigned char& byte : bytes) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    byte = static_cast<unsigned char>(seed >> 56);
  }
  std::string key;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::uint32_t group = (std::uint32_t{bytes[i]} << 16) |
                                (i + 1 < bytes.size() ? std::uint32_t{bytes[i + 1]} << 8 : 0) |
                                (i + 2 < bytes.size() ? std::uint32_t{bytes[i + 2]} : 0);
    key += kAlphabet[(group >> 18) & 63];
    key += kAlphabet[(group >> 12) & 63];
    key += i + 1 < bytes.size() ? kAlphabet[(group >> 6) & 63] : '=';
    key += i + 2 < bytes.size() ? kAlphabet[group & 63] : '=';
  }
  return key;
}

/// The opening handshake for `path` with `key`: HTTP/1.1 GET to 127.0.0.1, version 13,
/// offering no extension (so no permessage-deflate) and no subprotocol.
inline std::string upgrade_request(std::string_view path, std::string_view key) {
  std::string request = "GET ";
  request.append(path);
  request += " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ";
  request.append(key);
  request += "\r\nSec-WebSocket-Version: 13\r\n\r\n";
  return request;
}

/// Checks a response head (up to and including its blank line) to upgrade_request(…, key):
/// "" when it is a 101 with the Sec-WebSocket-Accept that `key` calls for and no
/// Sec-WebSocket-Extensions; otherwise what is wrong.
inline std::string check_upgrade_response(std::string_view head, std::string_view key) {
  const std::string_view status_line = head.substr(0, head.find("\r\n"));
  if (status_line.substr(0, 13) != "HTTP/1.1 101 " && status_line != "HTTP/1.1 101") {
    return "not a 101: " + std::string(status_line);
  }
  std::string lower(head);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("\r\nsec-websocket-extensions:") != std::string::npos) return "the 101 names an extension";
  const std::string_view field = "\r\nsec-websocket-accept:";
  const std::size_t at = lower.find(field);
  if (at == std::string::npos) return "the 101 has no Sec-WebSocket-Accept";
  std::string_view value = head.substr(at + field.size());
  value = value.substr(0, value.find("\r\n"));
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  const std::string expected = http::websocket::accept_value(key);
  if (value != expected) return "Sec-WebSocket-Accept is " + std::string(value) + ", expected " + expected;
  return {};
}

/// Appends one final frame of `opcode` carrying `payload`, masked with `mask` (§5.3:
/// every frame a client sends is masked).
inline void append_masked_frame(std::string& out, http::websocket::Opcode opcode, std::string_view payload,
                                std::uint32_t mask) {
  out += static_cast<char>(0x80 | static_cast<std::uint8_t>(opcode));
  const std::uint64_t length = payload.size();
  if (length <= 125) {
    out += static_cast<char>(0x80 | length);
  } else if (length <= 0xffff) {
    out += static_cast<char>(0x80 | 126);
    out += static_cast<char>(length >> 8);
    out += static_cast<char>(length & 0xff);
  } else {
    out += static_cast<char>(0x80 | 127);
    for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((length >> shift) & 0xff);
  }
  const std::array<unsigned char, 4> key{static_cast<unsigned char>(mask >> 24), static_cast<unsigned char>(mask >> 16),
                                         static_cast<unsigned char>(mask >> 8), static_cast<unsigned char>(mask)};
  out.append(reinterpret_cast<const char*>(key.data()), key.size());
  const std::size_t start = out.size();
  out.append(payload);
  for (std::size_t i = 0; i < payload.size(); ++i) out[start + i] = static_cast<char>(out[start + i] ^ key[i & 3]);
}

/// A close frame with `code` (no reason), masked with `mask`.
inline void append_masked_close(std::string& out, std::uint16_t code, std::uint32_t mask) {
  const char payload[2] = {static_cast<char>(code >> 8), static_cast<char>(code & 0xff)};
  append_masked_frame(out, http::websocket::Opcode::close, std::string_view(payload, 2), mask);
}

}  // namespace tiffany::loadtest

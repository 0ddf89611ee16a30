// The WebSocket opening handshake: the request's checks (RFC 6455 §4.2.1) and the accept value (§4.2.2).
#include "http/engine/websocket/handshake.hpp"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>
#include <vector>

#include <tiffany/http/headers.hpp>

namespace tiffany::http::websocket {
namespace {

constexpr std::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";  // RFC 6455 §1.3

bool is_base64_char(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

// The base64 of 16 bytes: 22 characters, then "==" (the last one's low 4 bits zero, §4.1 "randomly selected 16-byte value").
bool is_sixteen_byte_key(std::string_view key) noexcept {
  if (key.size() != 24 || key.substr(22) != "==") return false;
  for (std::size_t i = 0; i < 22; ++i) {
    if (!is_base64_char(key[i])) return false;
  }
  constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  return (kAlphabet.find(key[21]) & 0x0f) == 0;  // canonical: no bits past the 16th byte
}

std::string base64(const unsigned char* data, std::size_t size) {
  constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (std::size_t i = 0; i < size; i += 3) {
    const unsigned value = (static_cast<unsigned>(data[i]) << 16) | (i + 1 < size ? data[i + 1] << 8 : 0) |
                           (i + 2 < size ? data[i + 2] : 0);
    out += kAlphabet[(value >> 18) & 0x3f];
    out += kAlphabet[(value >> 12) & 0x3f];
    out += i + 1 < size ? kAlphabet[(value >> 6) & 0x3f] : '=';
    out += i + 2 < size ? kAlphabet[value & 0x3f] : '=';
  }
  return out;
}

// True when some value of `name` lists `token`.
bool header_lists(const Request& request, std::string_view name, std::string_view token) {
  for (const std::string_view value : request.headers.get_all(name)) {
    if (list_has_token(value, token)) return true;
  }
  return false;
}

HandshakeVerdict refuse(int status, std::string_view why, bool wrong_version = false) {
  HandshakeVerdict verdict;
  verdict.status = status;
  verdict.why = why;
  verdict.wrong_version = wrong_version;
  return verdict;
}

// The first of `ours` that the client offers in Sec-WebSocket-Protocol, or empty.
std::string choose_subprotocol(const Request& request, std::span<const std::string> ours) {
  for (const std::string& candidate : ours) {
    // Why exact case: subprotocol names are tokens compared as they are (§4.1, §11.3.4).
    for (const std::string_view value : request.headers.get_all("Sec-WebSocket-Protocol")) {
      std::string_view list = value;
      while (!list.empty()) {
        const std::size_t comma = list.find(',');
        if (trim_ows(list.substr(0, comma)) == candidate) return candidate;
        list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
      }
    }
  }
  return {};
}

}  // namespace

bool list_has_token(std::string_view list, std::string_view token) noexcept {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (iequals(trim_ows(list.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

HandshakeVerdict check_handshake(const Request& request, std::span<const std::string> subprotocols) {
  if (!header_lists(request, "Upgrade", "websocket") || !header_lists(request, "Connection", "upgrade")) {
    return refuse(426, "this resource speaks WebSocket: ask with Upgrade: websocket and Connection: Upgrade\n");
  }
  if (request.method != "GET") return refuse(400, "a WebSocket handshake is a GET request\n");
  if (request.version_major == 1 && request.version_minor == 0) {
    return refuse(400, "a WebSocket handshake needs HTTP/1.1\n");
  }
  if (!request.body.empty() || request.headers.contains("Transfer-Encoding") ||
      (request.headers.contains("Content-Length") && request.headers.get("Content-Length") != "0")) {
    return refuse(400, "a WebSocket handshake has no body\n");
  }
  const std::vector<std::string_view> versions = request.headers.get_all("Sec-WebSocket-Version");
  if (versions.size() != 1 || trim_ows(versions.front()) != "13") {
    return refuse(426, "this server speaks WebSocket version 13\n", true);
  }
  const std::vector<std::string_view> keys = request.headers.get_all("Sec-WebSocket-Key");
  if (keys.size() != 1 || !is_sixteen_byte_key(trim_ows(keys.front()))) {
    return refuse(400, "Sec-WebSocket-Key must be the base64 of 16 bytes, given once\n");
  }
  HandshakeVerdict verdict;
  verdict.accept = accept_value(trim_ows(keys.front()));
  verdict.subprotocol = choose_subprotocol(request, subprotocols);
  return verdict;
}

HandshakeVerdict check_connect_handshake(const Request& request, std::span<const std::string> subprotocols) {
  const std::vector<std::string_view> versions = request.headers.get_all("Sec-WebSocket-Version");
  if (versions.size() != 1 || trim_ows(versions.front()) != "13") {
    // Why 400, not 426: a 426 must name the protocol in Upgrade (RFC 9110 §15.5.22), which HTTP/2 forbids.
    return refuse(400, "this server speaks WebSocket version 13\n", true);
  }
  HandshakeVerdict verdict;
  verdict.subprotocol = choose_subprotocol(request, subprotocols);
  return verdict;
}

std::string accept_value(std::string_view key) {
  std::string input(key);
  input.append(kGuid);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  if (EVP_Digest(input.data(), input.size(), digest.data(), &size, EVP_sha1(), nullptr) != 1) {
    throw std::runtime_error("SHA-1 for Sec-WebSocket-Accept failed");
  }
  return base64(digest.data(), size);
}

}  // namespace tiffany::http::websocket

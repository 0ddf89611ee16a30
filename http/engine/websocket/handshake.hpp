// The server's half of the WebSocket opening handshake (RFC 6455 §4.2): checking the request, computing the answer.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <tiffany/http/request.hpp>

namespace tiffany::http::websocket {

/// What a request asking for a WebSocket gets.
struct HandshakeVerdict {
  /// 0: accept it; else the refusal's status (400, or 426: no upgrade asked
  /// for, or a version other than 13).
  int status = 0;
  bool wrong_version = false;  // the 426 names the version we speak (Sec-WebSocket-Version: 13)
  std::string_view why;        // the refusal, for its body (static text)
  std::string accept;          // Sec-WebSocket-Accept, when accepted
  std::string subprotocol;     // the one chosen, or empty
};

/// Checks `request` as an opening handshake: GET, HTTP/1.1 or later, no
/// body, `Upgrade` listing "websocket", `Connection` listing "upgrade",
/// `Sec-WebSocket-Version: 13` and one `Sec-WebSocket-Key` that is the
/// base64 of 16 bytes. Chooses the first of `subprotocols` the client
/// offers in `Sec-WebSocket-Protocol`.
HandshakeVerdict check_handshake(const Request& request, std::span<const std::string> subprotocols);

/// Checks `request` as an RFC 8441 extended CONNECT for `websocket` (over
/// HTTP/2, routed as a GET): `Sec-WebSocket-Version: 13` (else 400 naming
/// the version), no key (the stream is the handshake), and the subprotocol
/// chosen as check_handshake does.
HandshakeVerdict check_connect_handshake(const Request& request, std::span<const std::string> subprotocols);

/// Sec-WebSocket-Accept for `key`: base64(SHA-1(key + the RFC's GUID)).
std::string accept_value(std::string_view key);

/// True when the comma-separated `list` (a header's values, each
/// element trimmed) holds `token`, ignoring ASCII case.
bool list_has_token(std::string_view list, std::string_view token) noexcept;

}  // namespace tiffany::http::websocket

// WebSocket frames (RFC 6455 §5): opcodes, close codes, and writing a server's frames.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tiffany::http::websocket {

enum class Opcode : std::uint8_t { continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xa };

/// Close codes (RFC 6455 §7.4.1) this side sends or must recognise.
namespace close_code {
inline constexpr std::uint16_t normal = 1000;
inline constexpr std::uint16_t going_away = 1001;
inline constexpr std::uint16_t protocol_error = 1002;
inline constexpr std::uint16_t unsupported_data = 1003;
inline constexpr std::uint16_t no_status = 1005;  // never sent: a close frame without a code
inline constexpr std::uint16_t abnormal = 1006;   // never sent: the connection ended without a close frame
inline constexpr std::uint16_t invalid_payload = 1007;
inline constexpr std::uint16_t policy_violation = 1008;
inline constexpr std::uint16_t message_too_big = 1009;
inline constexpr std::uint16_t internal_error = 1011;
}  // namespace close_code

/// Whether a peer may send `code` in a close frame (RFC 6455 §7.4: 1000-1003,
/// 1007-1011, and 3000-4999 for libraries and applications; 1004-1006 and 1015
/// are reserved, as is everything else below 5000). And 1012-1014 (service
/// restart, try again later, bad gateway), which IANA's registry added since
/// and servers send: a client relaying them must not be failed for it.
bool is_sendable_close_code(std::uint16_t code) noexcept;

/// The most a control frame (close, ping, pong) may carry (§5.5).
inline constexpr std::size_t kMaxControlPayload = 125;

/// Appends one unmasked frame (a server's, §5.1) to `out`. `rsv1` marks a
/// compressed message's first frame (permessage-deflate, RFC 7692).
void append_frame(std::string& out, Opcode opcode, std::string_view payload, bool fin = true, bool rsv1 = false);

/// Appends a close frame with `code` and `reason`, cut to fit the 125 bytes of
/// a control frame (at a UTF-8 boundary).
void append_close(std::string& out, std::uint16_t code, std::string_view reason = {});

}  // namespace tiffany::http::websocket

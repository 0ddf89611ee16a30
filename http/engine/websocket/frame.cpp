// WebSocket frames: the close-code table and the server's frame header encoding.
#include "http/engine/websocket/frame.hpp"

namespace tiffany::http::websocket {

bool is_sendable_close_code(std::uint16_t code) noexcept {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

void append_frame(std::string& out, Opcode opcode, std::string_view payload, bool fin, bool rsv1) {
  out += static_cast<char>((fin ? 0x80 : 0x00) | (rsv1 ? 0x40 : 0x00) | static_cast<std::uint8_t>(opcode));
  const std::uint64_t length = payload.size();
  // The shortest length form, as §5.2 requires.
  if (length <= 125) {
    out += static_cast<char>(length);
  } else if (length <= 0xffff) {
    out += static_cast<char>(126);
    out += static_cast<char>(length >> 8);
    out += static_cast<char>(length & 0xff);
  } else {
    out += static_cast<char>(127);
    for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((length >> shift) & 0xff);
  }
  out.append(payload);
}

void append_close(std::string& out, std::uint16_t code, std::string_view reason) {
  std::size_t fits = reason.size() < kMaxControlPayload - 2 ? reason.size() : kMaxControlPayload - 2;
  // Why back off continuation bytes: a reason cut inside a character is invalid UTF-8 (1007 at the peer).
  while (fits > 0 && fits < reason.size() && (static_cast<unsigned char>(reason[fits]) & 0xc0) == 0x80) --fits;
  std::string payload;
  payload += static_cast<char>(code >> 8);
  payload += static_cast<char>(code & 0xff);
  payload.append(reason.substr(0, fits));
  append_frame(out, Opcode::close, payload);
}

}  // namespace tiffany::http::websocket

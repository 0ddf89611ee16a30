// RequestWriter: request heads and chunks for the outbound client.
#include "http/engine/request_writer.hpp"

#include <charconv>
#include <cstring>
#include <utility>

#include <tiffany/http/uri.hpp>

namespace tiffany::http {
namespace {

// A request-target as sent: visible ASCII only. Why so strict: a space
// would end the target early and CR or LF would start a line of the
// attacker's choosing; bytes from 0x80 up are not URI characters either.
bool is_valid_target(std::string_view target) noexcept {
  if (target.empty()) return false;
  for (const char c : target) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte >= 0x7f) return false;
  }
  return true;
}

// Why refused from the caller: framing and Host are the writer's; a second
// one from the caller is how a request is smuggled past the next hop.
bool is_framing_or_host(std::string_view name) noexcept {
  switch (name.size()) {
    case 4: return iequals(name, "host");
    case 14: return iequals(name, "content-length");
    case 17: return iequals(name, "transfer-encoding");
    default: return false;
  }
}

bool refuse(std::string& error, std::string message) {
  error = std::move(message);
  return false;
}

}  // namespace

bool write_request_head(const OutboundRequest& request, std::string& out, std::string& error) {
  if (!is_valid_field_name(request.method)) return refuse(error, "method is not a token");
  if (!is_valid_target(request.target))
    return refuse(error, "request-target is empty or holds a space, control or non-ASCII byte");
  if (!is_valid_host(request.host)) return refuse(error, "Host is not a valid host[:port]");
  // Why a size first: one allocation for the head, not one per doubling.
  std::size_t size = request.method.size() + request.target.size() + request.host.size() + 64;
  if (request.headers != nullptr) {
    for (const Headers::Field& field : *request.headers) {
      if (!is_valid_field_name(field.name)) return refuse(error, "field name \"" + field.name + "\" is not a token");
      if (find_invalid_field_value_byte(field.value) != std::string_view::npos) {
        return refuse(error, "field " + field.name + " holds a control character (CR, LF, NUL...)");
      }
      if (is_framing_or_host(field.name)) {
        return refuse(error, "field " + field.name + " is set by the writer, not the caller");
      }
      size += field.name.size() + field.value.size() + 4;
    }
  }
  // Why a cursor over a sized buffer: one call per piece, not a capacity check per append.
  const std::size_t start = out.size();
  out.resize(start + size);
  char* cursor = out.data() + start;
  const auto put = [&cursor](std::string_view piece) {
    std::memcpy(cursor, piece.data(), piece.size());
    cursor += piece.size();
  };
  put(request.method);
  put(" ");
  put(request.target);
  put(" HTTP/1.1\r\nHost: ");
  put(request.host);
  put("\r\n");
  if (request.headers != nullptr) {
    for (const Headers::Field& field : *request.headers) {
      put(field.name);
      put(": ");
      put(field.value);
      put("\r\n");
    }
  }
  out.resize(static_cast<std::size_t>(cursor - out.data()));
  switch (request.framing) {
    case RequestFraming::none: break;
    case RequestFraming::content_length: {
      char digits[24];
      const auto end = std::to_chars(digits, digits + sizeof digits, request.content_length).ptr;
      out.append("Content-Length: ").append(digits, static_cast<std::size_t>(end - digits)).append("\r\n");
      break;
    }
    case RequestFraming::chunked: out.append("Transfer-Encoding: chunked\r\n"); break;
  }
  out.append("\r\n");
  return true;
}

ChunkHead chunk_head(std::uint64_t size) noexcept {
  ChunkHead head;
  char* end = std::to_chars(head.bytes, head.bytes + sizeof head.bytes - 2, size, 16).ptr;
  *end++ = '\r';
  *end++ = '\n';
  head.size = static_cast<std::size_t>(end - head.bytes);
  return head;
}

void append_chunk(std::string& out, std::string_view data) {
  if (data.empty()) return;
  out.append(chunk_head(data.size()).view()).append(data).append(kChunkTail);
}

}  // namespace tiffany::http

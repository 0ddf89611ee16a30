// H2Connection: RFC 9113 frames over a Wire, HPACK literals out, nghttp2's
// inflater in; and the HTTP/1.1 → HTTP/2 request translation.
#include "h2_exchange.hpp"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cctype>

namespace tiffany::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr std::size_t kMaxFrame = 16384;  // SETTINGS_MAX_FRAME_SIZE's initial value; we never raise it

enum : std::uint8_t { DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, PING = 6, GOAWAY = 7, WINDOW_UPDATE = 8,
                      CONTINUATION = 9 };
enum : std::uint8_t { END_STREAM = 0x1, ACK = 0x1, END_HEADERS = 0x4, PADDED = 0x8, PRIORITY = 0x20 };

std::uint32_t be32(std::string_view bytes) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[0])) << 24 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[1])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[2])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[3]));
}

std::string put32(std::uint32_t value) {
  return {static_cast<char>(value >> 24), static_cast<char>(value >> 16), static_cast<char>(value >> 8),
          static_cast<char>(value)};
}

// RFC 7541 §5.1, in a 7-bit prefix with the H (Huffman) bit clear.
void hpack_length(std::string& out, std::size_t value) {
  if (value < 127) {
    out += static_cast<char>(value);
    return;
  }
  out += static_cast<char>(127);
  value -= 127;
  while (value >= 128) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

// Why literals without indexing (RFC 7541 §6.2.2) for every field: the bytes
// are exactly the field given (any case, any octet), and the server's dynamic
// table never changes, so nothing here need track it.
std::string hpack_block(const H2Fields& fields) {
  std::string block;
  for (const auto& [name, value] : fields) {
    block += '\0';
    hpack_length(block, name.size());
    block += name;
    hpack_length(block, value.size());
    block += value;
  }
  return block;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

std::string h2_error_name(std::uint32_t code) {
  static constexpr const char* kNames[] = {"NO_ERROR",       "PROTOCOL_ERROR",     "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
                                           "SETTINGS_TIMEOUT", "STREAM_CLOSED",    "FRAME_SIZE_ERROR", "REFUSED_STREAM",
                                           "CANCEL",         "COMPRESSION_ERROR",  "CONNECT_ERROR",  "ENHANCE_YOUR_CALM",
                                           "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"};
  if (code < std::size(kNames)) return kNames[code];
  return "0x" + std::to_string(code);
}

H2Connection::H2Connection(Wire& wire) : wire_(wire) {
  nghttp2_hd_inflate_new(&inflater_);
  std::string hello(kPreface);
  const std::string push_off = std::string("\0\x02", 2) + put32(0);  // SETTINGS_ENABLE_PUSH = 0
  hello += put32(static_cast<std::uint32_t>(push_off.size()) << 8 | SETTINGS);
  hello += std::string(1, '\0') + put32(0);
  hello += push_off;
  outbox_ = std::move(hello);  // sent with the first request
}

H2Connection::~H2Connection() { nghttp2_hd_inflate_del(inflater_); }

void H2Connection::send_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t id, std::string_view payload) {
  std::string frame = put32(static_cast<std::uint32_t>(payload.size()) << 8 | type);  // 24-bit length, type
  frame += static_cast<char>(flags);
  frame += put32(id);
  frame += payload;
  outbox_ += frame;
}

void H2Connection::send_headers(std::uint32_t id, const H2Fields& fields, bool end_stream) {
  const std::string block = hpack_block(fields);
  // Why split: a block over the peer's frame size goes on in CONTINUATION frames (RFC 9113 §4.3).
  std::string_view rest = block;
  const std::string_view first = rest.substr(0, kMaxFrame);
  rest.remove_prefix(first.size());
  send_frame(HEADERS, static_cast<std::uint8_t>((end_stream ? END_STREAM : 0) | (rest.empty() ? END_HEADERS : 0)), id,
             first);
  while (!rest.empty()) {
    const std::string_view piece = rest.substr(0, kMaxFrame);
    rest.remove_prefix(piece.size());
    send_frame(CONTINUATION, rest.empty() ? END_HEADERS : 0, id, piece);
  }
}

void H2Connection::flush() {
  if (!outbox_.empty() && !wire_.send(outbox_) && broken_.empty()) broken_ = "cannot send";
  outbox_.clear();
}

H2Outcome H2Connection::exchange(const H2Request& request, std::chrono::milliseconds patience) {
  const std::uint32_t id = next_id_;
  next_id_ += 2;
  Stream& stream = streams_[id];
  stream.after_continue = request.after_continue;
  const bool headers_end =
      request.end_stream && request.data.empty() && request.after_continue.empty() && !request.trailers;
  send_headers(id, request.headers, headers_end);
  for (std::size_t i = 0; i < request.data.size(); ++i) {
    const bool last = i + 1 == request.data.size() && request.after_continue.empty() && !request.trailers;
    send_frame(DATA, last && request.end_stream ? END_STREAM : 0, id, request.data[i]);
  }
  if (request.trailers) send_headers(id, *request.trailers, request.end_stream);
  flush();  // one write: the request arrives as a client sends it, in one segment
  const auto deadline = Clock::now() + patience;
  H2Outcome outcome;
  for (;;) {
    Stream& now = streams_[id];
    if (now.reset) {
      outcome.reset = now.reset;
      outcome.reply = now.reply;
      return outcome;
    }
    if (now.ended) {
      outcome.reply = now.reply;
      if (!outcome.reply) outcome.error = "the stream ended without a final response";
      return outcome;
    }
    if (goaway_ && goaway_last_ < id) {
      outcome.error = "GOAWAY " + h2_error_name(*goaway_) + " before the stream was answered";
      return outcome;
    }
    if (!broken_.empty()) {
      outcome.error = broken_;
      return outcome;
    }
    if (!read_frames(deadline)) {
      outcome.error = wire_.closed() ? "the server closed the connection" : "timed out";
      if (goaway_) outcome.error += " (after GOAWAY " + h2_error_name(*goaway_) + ")";
      return outcome;
    }
  }
}

bool H2Connection::read_frames(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0 || !wire_.receive(buffer_, left)) return false;
  while (buffer_.size() >= 9) {
    const std::size_t length = be32(std::string(1, '\0') + buffer_.substr(0, 3));
    if (buffer_.size() < 9 + length) break;
    const auto type = static_cast<std::uint8_t>(buffer_[3]);
    const auto flags = static_cast<std::uint8_t>(buffer_[4]);
    const std::uint32_t id = be32(std::string_view(buffer_).substr(5, 4)) & 0x7fffffffu;
    const std::string payload = buffer_.substr(9, length);
    buffer_.erase(0, 9 + length);
    handle(type, flags, id, payload);
  }
  flush();  // acknowledgements, window credit, a body after 100 Continue
  return true;
}

void H2Connection::handle(std::uint8_t type, std::uint8_t flags, std::uint32_t id, std::string_view payload) {
  if (continuing_ != 0 && type != CONTINUATION) {
    broken_ = "a frame inside a header block";
    return;
  }
  auto unpad = [&](std::string_view& body) {
    if ((flags & PADDED) == 0) return true;
    if (body.empty() || static_cast<unsigned char>(body[0]) + 1u > body.size()) return false;
    const std::size_t pad = static_cast<unsigned char>(body[0]);
    body = body.substr(1, body.size() - 1 - pad);
    return true;
  };
  switch (type) {
    case DATA: {
      std::string_view body = payload;
      if (!unpad(body)) {
        broken_ = "bad DATA padding";
        return;
      }
      Stream& stream = streams_[id];
      if (stream.reply) {
        stream.reply->body.append(body);
      } else {
        broken_ = "DATA before a final response on stream " + std::to_string(id);
      }
      if (!payload.empty()) {  // give the credit back so later streams are not starved
        send_frame(WINDOW_UPDATE, 0, 0, put32(static_cast<std::uint32_t>(payload.size())));
        if ((flags & END_STREAM) == 0) send_frame(WINDOW_UPDATE, 0, id, put32(static_cast<std::uint32_t>(payload.size())));
      }
      if ((flags & END_STREAM) != 0) stream.ended = true;
      return;
    }
    case HEADERS: {
      std::string_view block = payload;
      if (!unpad(block)) {
        broken_ = "bad HEADERS padding";
        return;
      }
      if ((flags & PRIORITY) != 0) block.remove_prefix(std::min<std::size_t>(5, block.size()));
      Stream& stream = streams_[id];
      stream.block.assign(block);
      stream.block_ends_stream = (flags & END_STREAM) != 0;
      if ((flags & END_HEADERS) != 0) {
        header_block_done(id, stream);
      } else {
        continuing_ = id;
      }
      return;
    }
    case CONTINUATION: {
      if (id != continuing_) {
        broken_ = "an unexpected CONTINUATION";
        return;
      }
      Stream& stream = streams_[id];
      stream.block.append(payload);
      if ((flags & END_HEADERS) != 0) {
        continuing_ = 0;
        header_block_done(id, stream);
      }
      return;
    }
    case RST_STREAM:
      if (payload.size() == 4) streams_[id].reset = be32(payload);
      return;
    case SETTINGS:
      if ((flags & ACK) == 0) send_frame(SETTINGS, ACK, 0, "");
      return;
    case PING:
      if ((flags & ACK) == 0) send_frame(PING, ACK, 0, payload);
      return;
    case GOAWAY:
      if (payload.size() >= 8) {
        goaway_last_ = be32(payload) & 0x7fffffffu;
        goaway_ = be32(payload.substr(4));
      }
      return;
    default:  // WINDOW_UPDATE (our bodies are small), PRIORITY, unknown types: nothing to do
      return;
  }
}

void H2Connection::header_block_done(std::uint32_t id, Stream& stream) {
  std::vector<std::pair<std::string, std::string>> fields;
  auto* in = reinterpret_cast<std::uint8_t*>(stream.block.data());
  std::size_t left = stream.block.size();
  for (;;) {
    nghttp2_nv nv;
    int flags = 0;
    const auto used = nghttp2_hd_inflate_hd2(inflater_, &nv, &flags, in, left, 1);
    if (used < 0) {
      broken_ = "HPACK error " + std::to_string(used);
      return;
    }
    in += used;
    left -= static_cast<std::size_t>(used);
    if ((flags & NGHTTP2_HD_INFLATE_EMIT) != 0) {
      fields.emplace_back(std::string(reinterpret_cast<const char*>(nv.name), nv.namelen),
                          std::string(reinterpret_cast<const char*>(nv.value), nv.valuelen));
    }
    if ((flags & NGHTTP2_HD_INFLATE_FINAL) != 0) {
      nghttp2_hd_inflate_end_headers(inflater_);
      break;
    }
    if (used == 0 && left == 0) break;
  }
  stream.block.clear();
  if (stream.block_ends_stream) stream.ended = true;
  if (stream.reply) return;  // trailers: not looked at
  std::optional<int> status;
  Reply reply;
  reply.version = "HTTP/2";
  for (auto& [name, value] : fields) {
    if (name == ":status") {
      status = std::atoi(value.c_str());
    } else if (name.starts_with(':')) {
      broken_ = "a response pseudo-field " + name;  // RFC 9113 §8.3.2: only :status
    } else {
      reply.fields.emplace_back(std::move(name), std::move(value));
    }
  }
  if (!status) {
    broken_ = "a response without :status on stream " + std::to_string(id);
    return;
  }
  if (*status >= 100 && *status < 200) {
    stream.interim.push_back(*status);
    if (*status == 100 && !stream.after_continue.empty()) {
      send_frame(DATA, END_STREAM, id, stream.after_continue);
      stream.after_continue.clear();
    }
    return;
  }
  reply.status = *status;
  reply.interim = stream.interim;
  stream.reply = std::move(reply);
}

std::optional<H2Request> from_http1(std::string_view raw, std::string_view scheme, std::string& why) {
  const auto head_end = raw.find("\r\n\r\n");
  if (head_end == std::string_view::npos) {
    why = "no end of the header section";
    return std::nullopt;
  }
  const std::string_view head = raw.substr(0, head_end + 2);
  std::string_view body = raw.substr(head_end + 4);
  const auto line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  const auto space = line.find(' ');
  const auto space2 = line.rfind(' ');
  if (space == std::string_view::npos || space2 == space || line.substr(space2 + 1) != "HTTP/1.1") {
    why = "not an HTTP/1.1 request line: " + std::string(line);
    return std::nullopt;
  }
  H2Request request;
  request.headers = {{":method", std::string(line.substr(0, space))},
                     {":scheme", std::string(scheme)},
                     {":path", std::string(line.substr(space + 1, space2 - space - 1))}};
  H2Fields fields;
  std::optional<std::string> authority;
  std::optional<std::size_t> length;
  for (std::size_t at = line_end + 2; at < head.size();) {
    const auto end = head.find("\r\n", at);
    const std::string_view field = head.substr(at, end - at);
    at = end + 2;
    const auto colon = field.find(':');
    if (colon == std::string_view::npos) {
      why = "not a field line";
      return std::nullopt;
    }
    std::string name = lower(field.substr(0, colon));
    const std::string value(trim(field.substr(colon + 1)));
    // RFC 9113 §8.2.2: these are HTTP/1.1's connection management, not sendable in HTTP/2.
    for (const char* specific : {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te"}) {
      if (name == specific) {
        why = "a connection-specific field: " + name;
        return std::nullopt;
      }
    }
    if (name == "host") {
      if (authority) {
        why = "two Host fields";
        return std::nullopt;
      }
      authority = value;
      continue;
    }
    if (name == "content-length") length = std::stoul(value);
    fields.emplace_back(std::move(name), value);
  }
  if (!authority) {
    why = "no Host";
    return std::nullopt;
  }
  request.headers.insert(request.headers.begin() + 2, {":authority", *authority});
  request.headers.insert(request.headers.end(), fields.begin(), fields.end());
  if (body.size() != length.value_or(0)) {
    why = body.size() > length.value_or(0) ? "bytes after the request (another request)" : "a body to come later";
    if (body.size() < length.value_or(0)) {
      // A body announced but not sent (a limit answered first): the stream stays open.
      request.end_stream = false;
      if (!body.empty()) request.data.emplace_back(body);
      return request;
    }
    return std::nullopt;
  }
  if (!body.empty()) request.data.emplace_back(body);
  return request;
}

}  // namespace tiffany::testing

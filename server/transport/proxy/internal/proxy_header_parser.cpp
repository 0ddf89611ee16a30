// ProxyHeaderParser: a byte-at-a-time state machine over the v1 line and the v2 block and its TLVs.
#include "server/transport/proxy/internal/proxy_header_parser.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace tiffany::proxy_protocol {
namespace {

constexpr char kV1Prefix[] = "PROXY ";  // 6 bytes
constexpr std::uint8_t kV2Signature[12] = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

// v2 TLV types (proxy-protocol.txt 2.2).
constexpr std::uint8_t kTypeAlpn = 0x01;
constexpr std::uint8_t kTypeAuthority = 0x02;
constexpr std::uint8_t kTypeUniqueId = 0x05;
constexpr std::uint8_t kTypeSsl = 0x20;
constexpr std::uint8_t kSubtypeSslVersion = 0x21;
constexpr std::uint8_t kSubtypeSslCn = 0x22;
constexpr std::uint8_t kSslClientBits = 0x07;  // PP2_CLIENT_SSL | PP2_CLIENT_CERT_CONN | PP2_CLIENT_CERT_SESS
constexpr std::size_t kMaxUniqueId = 128;

bool visible(char c) noexcept { return c > 0x20 && c < 0x7F; }

// A v1 port: 1 to 5 decimal digits, no leading zero, at most 65535.
bool parse_port(std::string_view text, std::uint16_t& port) noexcept {
  if (text.empty() || text.size() > 5 || (text.size() > 1 && text[0] == '0')) return false;
  std::uint32_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if (value > 65535) return false;
  port = static_cast<std::uint16_t>(value);
  return true;
}

// A v1 address of `family`, as inet_pton reads it (IPv4: four decimal octets, no leading zeros).
bool parse_address(std::string_view text, int family, std::uint16_t port, sockaddr_storage& out) noexcept {
  char buffer[INET6_ADDRSTRLEN + 1];
  if (text.empty() || text.size() >= sizeof buffer) return false;
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  out = sockaddr_storage{};
  if (family == AF_INET) {
    auto& in4 = reinterpret_cast<sockaddr_in&>(out);
    in4.sin_family = AF_INET;
    in4.sin_port = htons(port);
    return inet_pton(AF_INET, buffer, &in4.sin_addr) == 1;
  }
  auto& in6 = reinterpret_cast<sockaddr_in6&>(out);
  in6.sin6_family = AF_INET6;
  in6.sin6_port = htons(port);
  return inet_pton(AF_INET6, buffer, &in6.sin6_addr) == 1;
}

void set_port(sockaddr_storage& address, std::uint16_t port) noexcept {
  if (address.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in&>(address).sin_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in6&>(address).sin6_port = htons(port);
  }
}

// Splits off `fields` up to the next space; false if none is left.
bool next_field(std::string_view& fields, std::string_view& field, bool last) noexcept {
  const std::size_t space = fields.find(' ');
  if (last) {
    if (space != std::string_view::npos) return false;
    field = fields;
    fields = {};
    return true;
  }
  if (space == std::string_view::npos) return false;
  field = fields.substr(0, space);
  fields.remove_prefix(space + 1);
  return true;
}

std::uint16_t big_endian16(const std::uint8_t* bytes) noexcept {
  return static_cast<std::uint16_t>((bytes[0] << 8) | bytes[1]);
}

}  // namespace

ProxyHeaderParser::Status ProxyHeaderParser::fail(const char* format, ...) noexcept {
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(error_.data(), error_.size(), format, arguments);
  va_end(arguments);
  state_ = State::error;
  return Status::error;
}

ProxyHeaderParser::Result ProxyHeaderParser::feed(std::string_view bytes) noexcept {
  if (state_ == State::done) return {Status::done, 0};
  if (state_ == State::error) return {Status::error, 0};
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const Status status = take(bytes[i]);
    if (status == Status::error) return {Status::error, i};
    ++consumed_;
    if (status == Status::done) return {Status::done, i + 1};
  }
  return {Status::need_more, bytes.size()};
}

ProxyHeaderParser::Status ProxyHeaderParser::take(char byte) noexcept {
  switch (state_) {
    case State::start:
      if (byte == kV1Prefix[0]) {
        state_ = State::v1;
        return take_v1(byte);
      }
      if (static_cast<std::uint8_t>(byte) == kV2Signature[0]) {
        state_ = State::v2_fixed;
        return take_v2_fixed(byte);
      }
      return fail("not a PROXY protocol header: expected \"PROXY \" (v1) or the v2 signature, got byte 0x%02x",
                  static_cast<unsigned>(static_cast<std::uint8_t>(byte)));
    case State::v1: return take_v1(byte);
    case State::v2_fixed: return take_v2_fixed(byte);
    case State::v2_address:
      if (skip_ > 0) {  // LOCAL or AF_UNSPEC: the whole block is passed over
        --skip_;
        --remaining_;
        if (remaining_ == 0) state_ = State::done;
        return remaining_ == 0 ? Status::done : Status::need_more;
      }
      address_[address_size_++] = static_cast<std::uint8_t>(byte);
      --remaining_;
      if (address_size_ < address_need_) return Status::need_more;
      return finish_v2_address();
    case State::v2_tlv_head:
      tlv_head_[tlv_head_size_++] = static_cast<std::uint8_t>(byte);
      --remaining_;
      if (tlv_head_size_ < tlv_head_.size()) return Status::need_more;
      return start_tlv();
    case State::v2_tlv_value:
      --remaining_;
      if (tlv_kept_) {
        value_[value_size_++] = byte;
        if (value_size_ < tlv_length_) return Status::need_more;
        return finish_tlv();
      }
      --skip_;
      if (skip_ > 0) return Status::need_more;
      return after_value();
    case State::done: return Status::done;
    case State::error: return Status::error;
  }
  return Status::error;
}

// ---- v1: "PROXY TCP4 1.2.3.4 5.6.7.8 1234 443\r\n" ----

ProxyHeaderParser::Status ProxyHeaderParser::take_v1(char byte) noexcept {
  if (line_size_ < 6) {
    if (byte != kV1Prefix[line_size_]) {
      return fail("v1: expected \"PROXY \" at the start, byte %zu differs", line_size_);
    }
    line_[line_size_++] = byte;
    return Status::need_more;
  }
  if (byte == '\n') return finish_v1();
  if (line_size_ + 1 >= kMaxV1Bytes) {  // room is left for the '\n'
    return fail("v1: no CRLF within %zu bytes (the longest v1 header)", kMaxV1Bytes);
  }
  line_[line_size_++] = byte;
  return Status::need_more;
}

ProxyHeaderParser::Status ProxyHeaderParser::finish_v1() noexcept {
  header_.version = 1;
  if (line_size_ == 0 || line_[line_size_ - 1] != '\r') return fail("v1: the line ends in a bare LF, not CRLF");
  const std::string_view line(line_.data() + 6, line_size_ - 7);  // after "PROXY ", before "\r"
  if (line == "UNKNOWN" || line.substr(0, 8) == "UNKNOWN ") {
    // Why the rest is ignored: the spec tells receivers to ignore what
    // follows UNKNOWN (a proxy that does not know the family may say anything).
    header_.local = true;
    state_ = State::done;
    return Status::done;
  }
  for (char c : line) {
    if (c != ' ' && !visible(c)) {
      return fail("v1: byte 0x%02x in the line (only printable ASCII and single spaces)",
                  static_cast<unsigned>(static_cast<std::uint8_t>(c)));
    }
  }
  if (line.substr(0, 5) == "TCP4 ") return v1_tcp(line.substr(5), AF_INET);
  if (line.substr(0, 5) == "TCP6 ") return v1_tcp(line.substr(5), AF_INET6);
  return fail("v1: expected \"TCP4 \", \"TCP6 \" or \"UNKNOWN\" after \"PROXY \"");
}

ProxyHeaderParser::Status ProxyHeaderParser::v1_tcp(std::string_view fields, int family) noexcept {
  const char* name = family == AF_INET ? "TCP4" : "TCP6";
  const char* kind = family == AF_INET ? "an IPv4" : "an IPv6";
  std::string_view source, destination, source_port, destination_port;
  if (!next_field(fields, source, false) || !next_field(fields, destination, false) ||
      !next_field(fields, source_port, false) || !next_field(fields, destination_port, true)) {
    return fail("v1: %s wants exactly four fields after it, each after a single space: source, destination, "
                "source port, destination port",
                name);
  }
  std::uint16_t from = 0, to = 0;
  if (!parse_port(source_port, from)) return fail("v1: the source port is not a number from 0 to 65535 without leading zeros");
  if (!parse_port(destination_port, to)) {
    return fail("v1: the destination port is not a number from 0 to 65535 without leading zeros");
  }
  if (!parse_address(source, family, from, header_.source)) return fail("v1: the source is not %s address (%s)", kind, name);
  if (!parse_address(destination, family, to, header_.destination)) {
    return fail("v1: the destination is not %s address (%s)", kind, name);
  }
  state_ = State::done;
  return Status::done;
}

// ---- v2: signature, version and command, family and protocol, length, addresses, TLVs ----

ProxyHeaderParser::Status ProxyHeaderParser::take_v2_fixed(char byte) noexcept {
  const auto value = static_cast<std::uint8_t>(byte);
  if (fixed_size_ < sizeof kV2Signature && value != kV2Signature[fixed_size_]) {
    return fail("v2: byte %zu of the signature is 0x%02x, expected 0x%02x", fixed_size_, static_cast<unsigned>(value),
                static_cast<unsigned>(kV2Signature[fixed_size_]));
  }
  fixed_[fixed_size_++] = value;
  if (fixed_size_ < fixed_.size()) return Status::need_more;
  return start_v2_body();
}

ProxyHeaderParser::Status ProxyHeaderParser::start_v2_body() noexcept {
  header_.version = 2;
  const std::uint8_t version_command = fixed_[12];
  if ((version_command >> 4) != 2) return fail("v2: version %u, expected 2", static_cast<unsigned>(version_command >> 4));
  const unsigned command = version_command & 0x0F;
  if (command > 1) return fail("v2: command %u, expected 0 (LOCAL) or 1 (PROXY)", command);
  v2_proxy_ = command == 1;
  v2_family_ = fixed_[13];
  remaining_ = big_endian16(&fixed_[14]);
  if (v2_proxy_) {
    switch (v2_family_) {
      case 0x00: break;  // AF_UNSPEC: no address; the socket's peer stays
      case 0x11: address_need_ = 12; break;
      case 0x21: address_need_ = 36; break;
      case 0x12:
      case 0x22: return fail("v2: family byte 0x%02x is UDP (DGRAM); only TCP (STREAM) is served", v2_family_);
      case 0x31:
      case 0x32: return fail("v2: family byte 0x%02x is AF_UNIX; only AF_INET and AF_INET6 are served", v2_family_);
      default:
        return fail("v2: family byte 0x%02x is not one of 0x00, 0x11 (TCP over IPv4) or 0x21 (TCP over IPv6)",
                    static_cast<unsigned>(v2_family_));
    }
    if (remaining_ < address_need_) {
      return fail("v2: length %zu is shorter than the %zu-byte address block of family 0x%02x", remaining_,
                  address_need_, static_cast<unsigned>(v2_family_));
    }
  } else if (v2_family_ != 0x00 && v2_family_ != 0x11 && v2_family_ != 0x21 && v2_family_ != 0x12 &&
             v2_family_ != 0x22 && v2_family_ != 0x31 && v2_family_ != 0x32) {
    return fail("v2: family byte 0x%02x is not one the protocol defines", static_cast<unsigned>(v2_family_));
  }
  if (!v2_proxy_ || v2_family_ == 0x00) {
    // LOCAL (a health check from the proxy itself) or no address: the
    // receiver must use the real endpoints and skip the block, TLVs included.
    header_.local = true;
    skip_ = remaining_;
    state_ = State::v2_address;
    if (remaining_ == 0) {
      state_ = State::done;
      return Status::done;
    }
    return Status::need_more;
  }
  state_ = State::v2_address;
  return Status::need_more;
}

ProxyHeaderParser::Status ProxyHeaderParser::finish_v2_address() noexcept {
  header_.source = sockaddr_storage{};
  header_.destination = sockaddr_storage{};
  if (v2_family_ == 0x11) {
    auto& source = reinterpret_cast<sockaddr_in&>(header_.source);
    auto& destination = reinterpret_cast<sockaddr_in&>(header_.destination);
    source.sin_family = destination.sin_family = AF_INET;
    std::memcpy(&source.sin_addr, &address_[0], 4);
    std::memcpy(&destination.sin_addr, &address_[4], 4);
    set_port(header_.source, big_endian16(&address_[8]));
    set_port(header_.destination, big_endian16(&address_[10]));
  } else {
    auto& source = reinterpret_cast<sockaddr_in6&>(header_.source);
    auto& destination = reinterpret_cast<sockaddr_in6&>(header_.destination);
    source.sin6_family = destination.sin6_family = AF_INET6;
    std::memcpy(&source.sin6_addr, &address_[0], 16);
    std::memcpy(&destination.sin6_addr, &address_[16], 16);
    set_port(header_.source, big_endian16(&address_[32]));
    set_port(header_.destination, big_endian16(&address_[34]));
  }
  return after_value();
}

// Next: another TLV, or the end of the header.
ProxyHeaderParser::Status ProxyHeaderParser::after_value() noexcept {
  if (remaining_ == 0) {
    state_ = State::done;
    return Status::done;
  }
  if (remaining_ < tlv_head_.size()) {
    return fail("v2: %zu byte(s) left at offset %zu, too few for a TLV (type and 2-byte length)", remaining_,
                consumed_ + 1);
  }
  tlv_offset_ = consumed_ + 1;
  tlv_head_size_ = 0;
  state_ = State::v2_tlv_head;
  return Status::need_more;
}

ProxyHeaderParser::Status ProxyHeaderParser::start_tlv() noexcept {
  tlv_type_ = tlv_head_[0];
  tlv_length_ = big_endian16(&tlv_head_[1]);
  if (tlv_length_ > remaining_) {
    return fail("v2: TLV 0x%02x at offset %zu says %zu bytes, only %zu remain in the header",
                static_cast<unsigned>(tlv_type_), tlv_offset_, tlv_length_, remaining_);
  }
  std::size_t limit = 0;  // kept TLVs: the longest value taken
  switch (tlv_type_) {
    case kTypeAlpn:
    case kTypeAuthority: limit = 255; break;
    case kTypeSsl: limit = value_.size(); break;
    case kTypeUniqueId:
      if (tlv_length_ > kMaxUniqueId) {
        return fail("v2: PP2_TYPE_UNIQUE_ID at offset %zu is %zu bytes, at most %zu allowed", tlv_offset_,
                    tlv_length_, kMaxUniqueId);
      }
      break;
    default: break;  // CRC32C (not checked), NOOP, NETNS and unknown types: skipped
  }
  if (limit != 0) {
    const char* name = tlv_type_ == kTypeAlpn ? "PP2_TYPE_ALPN" : tlv_type_ == kTypeAuthority ? "PP2_TYPE_AUTHORITY" : "PP2_TYPE_SSL";
    if (tlv_length_ == 0 || tlv_length_ > limit) {
      return fail("v2: %s at offset %zu is %zu bytes, expected 1 to %zu", name, tlv_offset_, tlv_length_, limit);
    }
    if ((tlv_type_ == kTypeAlpn && seen_alpn_) || (tlv_type_ == kTypeAuthority && seen_authority_) ||
        (tlv_type_ == kTypeSsl && header_.ssl)) {
      return fail("v2: a second %s at offset %zu", name, tlv_offset_);
    }
  }
  tlv_kept_ = limit != 0;
  value_size_ = 0;
  skip_ = tlv_kept_ ? 0 : tlv_length_;
  if (tlv_length_ == 0) return after_value();
  state_ = State::v2_tlv_value;
  return Status::need_more;
}

ProxyHeaderParser::Status ProxyHeaderParser::finish_tlv() noexcept {
  const std::string_view value(value_.data(), value_size_);
  if (tlv_type_ == kTypeAlpn || tlv_type_ == kTypeAuthority) {
    for (char c : value) {
      if (!visible(c)) {
        return fail("v2: %s at offset %zu holds byte 0x%02x (printable ASCII without spaces expected)",
                    tlv_type_ == kTypeAlpn ? "PP2_TYPE_ALPN" : "PP2_TYPE_AUTHORITY", tlv_offset_,
                    static_cast<unsigned>(static_cast<std::uint8_t>(c)));
      }
    }
    if (tlv_type_ == kTypeAlpn) {
      header_.alpn.assign(value);
      seen_alpn_ = true;
    } else {
      header_.authority.assign(value);
      seen_authority_ = true;
    }
    return after_value();
  }
  const Status status = parse_ssl(value);
  return status == Status::error ? status : after_value();
}

// PP2_TYPE_SSL: client (1 byte), verify (4 bytes), then sub-TLVs.
ProxyHeaderParser::Status ProxyHeaderParser::parse_ssl(std::string_view value) noexcept {
  if (value.size() < 5) {
    return fail("v2: PP2_TYPE_SSL at offset %zu is %zu bytes, at least 5 expected (client, verify)", tlv_offset_,
                value.size());
  }
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(value.data());
  if ((bytes[0] & ~kSslClientBits) != 0) {
    return fail("v2: PP2_TYPE_SSL at offset %zu has client bits 0x%02x, only 0x01, 0x02 and 0x04 are defined",
                tlv_offset_, static_cast<unsigned>(bytes[0]));
  }
  header_.ssl = true;
  header_.ssl_client = bytes[0];
  header_.ssl_verify = (std::uint32_t{bytes[1]} << 24) | (std::uint32_t{bytes[2]} << 16) |
                       (std::uint32_t{bytes[3]} << 8) | std::uint32_t{bytes[4]};
  bool seen_version = false, seen_cn = false;
  for (std::size_t at = 5; at < value.size();) {
    if (value.size() - at < 3) {
      return fail("v2: PP2_TYPE_SSL at offset %zu: %zu byte(s) left at its byte %zu, too few for a sub-TLV",
                  tlv_offset_, value.size() - at, at);
    }
    const std::uint8_t type = bytes[at];
    const std::size_t length = big_endian16(&bytes[at + 1]);
    if (length > value.size() - at - 3) {
      return fail("v2: PP2_TYPE_SSL at offset %zu: sub-TLV 0x%02x at its byte %zu says %zu bytes, only %zu remain",
                  tlv_offset_, static_cast<unsigned>(type), at, length, value.size() - at - 3);
    }
    const std::string_view sub = value.substr(at + 3, length);
    if (type == kSubtypeSslVersion || type == kSubtypeSslCn) {
      const char* name = type == kSubtypeSslVersion ? "PP2_SUBTYPE_SSL_VERSION" : "PP2_SUBTYPE_SSL_CN";
      const std::size_t limit = type == kSubtypeSslVersion ? 64 : 255;
      bool& seen = type == kSubtypeSslVersion ? seen_version : seen_cn;
      if (seen) return fail("v2: PP2_TYPE_SSL at offset %zu: a second %s", tlv_offset_, name);
      seen = true;
      if (sub.empty() || sub.size() > limit) {
        return fail("v2: PP2_TYPE_SSL at offset %zu: %s is %zu bytes, expected 1 to %zu", tlv_offset_, name,
                    sub.size(), limit);
      }
      for (char c : sub) {
        // Why spaces are allowed: a Common Name may hold them ("Jane Doe");
        // control bytes are not (they would reach logs and headers).
        const auto u = static_cast<std::uint8_t>(c);
        if (u < 0x20 || u == 0x7F) {
          return fail("v2: PP2_TYPE_SSL at offset %zu: %s holds control byte 0x%02x", tlv_offset_, name,
                      static_cast<unsigned>(u));
        }
      }
      (type == kSubtypeSslVersion ? static_cast<void>(header_.ssl_version.assign(sub))
                                  : static_cast<void>(header_.ssl_cn.assign(sub)));
    }
    at += 3 + length;
  }
  return Status::need_more;
}

}  // namespace tiffany::proxy_protocol

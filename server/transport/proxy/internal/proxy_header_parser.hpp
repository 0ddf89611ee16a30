// ProxyHeaderParser: the PROXY protocol header (v1 text, v2 binary) a load balancer sends before a connection's bytes.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tiffany::proxy_protocol {

/// A short text of at most N bytes kept inline (no allocation).
template <std::size_t N>
class InlineText {
 public:
  std::string_view view() const noexcept { return {data_.data(), size_}; }
  bool empty() const noexcept { return size_ == 0; }
  void assign(std::string_view text) noexcept {  // callers check text.size() <= N
    size_ = text.size() < N ? text.size() : N;
    for (std::size_t i = 0; i < size_; ++i) data_[i] = text[i];
  }

 private:
  std::array<char, N> data_{};
  std::size_t size_ = 0;
};

/// What a PROXY header said. `local` (v1 UNKNOWN, v2 LOCAL or AF_UNSPEC):
/// no client address was given, the socket's peer stays the peer.
struct ProxyHeader {
  int version = 0;  // 1 or 2
  bool local = false;
  sockaddr_storage source{};       // AF_INET or AF_INET6 with the port, unless local
  sockaddr_storage destination{};  // likewise
  // v2 TLVs (empty when absent). The CRC32C TLV is skipped, not checked:
  // the header comes from a trusted address over TCP, which has its own checksum.
  InlineText<255> alpn;       // PP2_TYPE_ALPN: the protocol the client chose, "h2"
  InlineText<255> authority;  // PP2_TYPE_AUTHORITY: the host name the client asked for (SNI)
  bool ssl = false;           // PP2_TYPE_SSL present
  std::uint8_t ssl_client = 0;   // its client bits: 0x01 SSL, 0x02 cert on this connection, 0x04 cert in session
  std::uint32_t ssl_verify = 0;  // 0: the client's certificate verified (when it sent one)
  InlineText<64> ssl_version;    // PP2_SUBTYPE_SSL_VERSION: "TLSv1.3"
  InlineText<255> ssl_cn;        // PP2_SUBTYPE_SSL_CN: the client certificate's Common Name
};

/// Reads one PROXY protocol header, v1 or v2 (HAProxy's proxy-protocol.txt),
/// from bytes fed as they arrive, in pieces of any size. Strict: every field
/// is checked, and the first wrong byte is an error whose message says what
/// was expected where. It consumes nothing past the header. No allocation:
/// ~2 KiB inline, for the one header of a connection.
class ProxyHeaderParser {
 public:
  enum class Status { need_more, done, error };
  struct Result {
    Status status;
    /// Bytes of this feed that belong to the header: all of them on
    /// need_more, up to the header's last byte on done (the rest belongs to
    /// what follows: TLS, HTTP), up to the offending byte on error.
    std::size_t used;
  };

  /// The longest v1 header, CRLF included.
  static constexpr std::size_t kMaxV1Bytes = 107;

  Result feed(std::string_view bytes) noexcept;
  /// Valid once feed() said done.
  const ProxyHeader& header() const noexcept { return header_; }
  /// Why, once feed() said error: "v1: the source port has a leading zero".
  const char* error() const noexcept { return error_.data(); }
  /// Header bytes consumed so far.
  std::size_t consumed() const noexcept { return consumed_; }

 private:
  enum class State { start, v1, v2_fixed, v2_address, v2_tlv_head, v2_tlv_value, done, error };

  Status fail(const char* format, ...) noexcept __attribute__((format(printf, 2, 3)));
  Status take(char byte) noexcept;
  Status take_v1(char byte) noexcept;
  Status finish_v1() noexcept;
  Status v1_tcp(std::string_view fields, int family) noexcept;
  Status take_v2_fixed(char byte) noexcept;
  Status start_v2_body() noexcept;
  Status finish_v2_address() noexcept;
  Status start_tlv() noexcept;
  Status finish_tlv() noexcept;
  Status parse_ssl(std::string_view value) noexcept;
  Status after_value() noexcept;

  State state_ = State::start;
  ProxyHeader header_;
  std::size_t consumed_ = 0;
  std::array<char, kMaxV1Bytes> line_{};  // v1: the line so far
  std::size_t line_size_ = 0;
  std::array<std::uint8_t, 16> fixed_{};  // v2: signature, version and command, family, length
  std::size_t fixed_size_ = 0;
  bool v2_proxy_ = false;       // command PROXY (not LOCAL)
  std::uint8_t v2_family_ = 0;  // 0x11 TCP over IPv4, 0x21 TCP over IPv6, 0x00 unspecified
  std::size_t remaining_ = 0;   // v2 bytes after the fixed 16 still to come
  std::size_t skip_ = 0;        // v2 bytes to pass over (LOCAL's block, an unused TLV)
  std::array<std::uint8_t, 36> address_{};  // v2: the address block
  std::size_t address_size_ = 0;
  std::size_t address_need_ = 0;
  std::array<std::uint8_t, 3> tlv_head_{};  // type, length (big-endian)
  std::size_t tlv_head_size_ = 0;
  std::size_t tlv_offset_ = 0;  // where the current TLV starts, from the header's first byte
  std::uint8_t tlv_type_ = 0;
  std::size_t tlv_length_ = 0;
  bool tlv_kept_ = false;  // its value is collected in value_ (else skipped)
  std::array<char, 1024> value_{};
  std::size_t value_size_ = 0;
  bool seen_alpn_ = false, seen_authority_ = false;
  std::array<char, 160> error_{};
};

}  // namespace tiffany::proxy_protocol

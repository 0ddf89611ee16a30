// Proxy header rewriting (RFC 9110 §7.6, RFC 7239): what a reverse proxy changes in requests and responses it forwards.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/http/headers.hpp>

namespace tiffany::upstream {

/// Who asked, as the proxy saw it.
struct ClientInfo {
  std::string address;     // IP literal without brackets; empty: unknown
  std::uint16_t port = 0;  // 0: not sent in Forwarded
  bool tls = false;        // the client spoke HTTPS: proto=https
  int version_major = 1;   // the client's HTTP version, for Via
  int version_minor = 1;
};

struct ProxyHeaderOptions {
  /// false (default): X-Forwarded-For/-Proto/-Host and Forwarded from the
  /// client are dropped and replaced by what this proxy saw. true: they are
  /// kept and this hop is appended (nginx's $proxy_add_x_forwarded_for).
  /// Why false by default: at the edge these fields come from anyone, and an
  /// upstream trusting a forged X-Forwarded-For is a classic access-control
  /// bypass; set true only behind another proxy that sets them itself.
  bool trust_forwarded = false;
  /// Empty: the client's Host is passed through. Else Host is set to this
  /// (e.g. the upstream's "app.internal:8080"), and X-Forwarded-Host still
  /// carries the client's.
  std::string upstream_host;
  std::string via_name = "tiffany";  // received-by in Via
};

/// True for the hop-by-hop fields every message loses (RFC 9110 §7.6.1):
/// Connection, Keep-Alive, Proxy-Connection, TE, Transfer-Encoding, Upgrade,
/// Proxy-Authenticate, Proxy-Authorization, Trailer (any case).
/// Why Trailer and TE go: the proxy re-frames bodies and does not forward
/// trailers, so announcing them would be false.
bool is_fixed_hop_by_hop(std::string_view name) noexcept;

/// True for the fields that say who forwarded a request: Forwarded,
/// X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Host.
bool is_forwarding_field(std::string_view name) noexcept;

/// Tells the hop-by-hop fields of one message: the fixed ones and those its
/// Connection fields name (comma lists, repeated Connection fields, empty
/// elements skipped; Host is never one). Holds copies of the names, so the
/// message may change after.
class HopByHop {
 public:
  explicit HopByHop(const http::Headers& headers);
  bool operator()(std::string_view name) const noexcept;

 private:
  std::vector<std::string> named_;  // empty unless Connection names other fields
};

/// Removes the hop-by-hop fields (HopByHop) in place. Use in both directions.
void remove_hop_by_hop(http::Headers& headers);

/// Appends this hop to a request going upstream: Via, then X-Forwarded-For,
/// X-Forwarded-Proto, X-Forwarded-Host (the client's Host, "" when it sent
/// none) and Forwarded (RFC 7239), appended to those the request holds
/// with trust_forwarded; without it the request must hold none of them
/// (is_forwarding_field), as rewrite_request_headers and the proxy ensure.
void add_forwarding_headers(http::Headers& headers, std::string_view client_host, const ClientInfo& client,
                            const ProxyHeaderOptions& options);

/// The request going upstream: hop-by-hop removed, Via appended, Host set,
/// X-Forwarded-For/-Proto/-Host and Forwarded (RFC 7239) set or appended.
void rewrite_request_headers(http::Headers& headers, const ClientInfo& client, const ProxyHeaderOptions& options);

/// The response going back: hop-by-hop removed, Via appended with the
/// upstream response's version.
void rewrite_response_headers(http::Headers& headers, int version_major, int version_minor,
                              const ProxyHeaderOptions& options);

/// Via's received-protocol for a version: "1.1", "1.0", "2".
std::string via_protocol(int version_major, int version_minor);

/// A Via value: the received-protocol and `via_name`, "1.1 tiffany".
std::string via_value(int version_major, int version_minor, std::string_view via_name);

/// An RFC 7239 node: `192.0.2.1`, `"192.0.2.1:80"`, `"[2001:db8::1]"`,
/// `"[2001:db8::1]:1234"`, or `unknown` when address is empty.
std::string forwarded_node(std::string_view address, std::uint16_t port);

/// An RFC 7239 value: a token as it is, anything else quoted with `"` and `\` escaped.
std::string forwarded_value(std::string_view value);

/// forwarded_node and forwarded_value, appended to `out`.
void append_forwarded_node(std::string& out, std::string_view address, std::uint16_t port);
void append_forwarded_value(std::string& out, std::string_view value);

/// The request target sent upstream: a path starting with `strip_prefix` at a
/// segment boundary ("/app" matches "/app" and "/app/x", not "/apple") has it
/// replaced by `replacement`; the query is kept; an empty path becomes "/".
/// Targets not under the prefix come back as they were.
std::string rewrite_path(std::string_view target, std::string_view strip_prefix, std::string_view replacement);

}  // namespace tiffany::upstream

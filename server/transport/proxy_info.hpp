// ProxyInfo: what a connection's PROXY protocol header said, kept for the connection's life.
#pragma once

#include <cstdint>
#include <string>

namespace tiffany {

/// Filled once per connection by ProxyProtocolTransport; reached by the
/// protocol through ConnectionContext::proxy. Internal (not a plugin SDK
/// type: the plugin ABI's Request is unchanged). Text fields are empty when
/// the header did not carry them.
struct ProxyInfo {
  int version = 0;          // 1 or 2
  std::string socket_peer;  // the proxy's own address, "127.0.0.1:41000": the TCP peer
  std::string destination;  // the address the client connected to on the proxy, "203.0.113.5:443"
  std::string alpn;         // v2 PP2_TYPE_ALPN: the protocol the client chose with the proxy ("h2")
  std::string authority;    // v2 PP2_TYPE_AUTHORITY: the host name the client asked for (its SNI)
  bool ssl = false;         // v2 PP2_TYPE_SSL present
  bool client_ssl = false;  // its PP2_CLIENT_SSL bit: the client reached the proxy over TLS
  std::uint8_t ssl_client = 0;   // all its client bits
  std::uint32_t ssl_verify = 0;  // 0: the client certificate (if any) verified
  std::string ssl_version;       // PP2_SUBTYPE_SSL_VERSION, "TLSv1.3"
  std::string ssl_cn;            // PP2_SUBTYPE_SSL_CN: the client certificate's Common Name
};

}  // namespace tiffany

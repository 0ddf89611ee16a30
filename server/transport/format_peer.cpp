// format_peer: inet_ntop with the port, IPv6 in brackets.
#include "server/transport/format_peer.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

namespace tiffany {

std::string format_peer(const sockaddr_storage& peer) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (peer.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(peer);
    inet_ntop(AF_INET6, &in6.sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6.sin6_port));
  }
  const auto& in4 = reinterpret_cast<const sockaddr_in&>(peer);
  inet_ntop(AF_INET, &in4.sin_addr, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(in4.sin_port));
}

}  // namespace tiffany

// Listening sockets: socket/setsockopt/bind/listen with errors that say which step failed.
#include "server/listen_socket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <system_error>

namespace tiffany {
namespace {

constexpr int kListenBacklog = 4096;

[[noreturn]] void throw_errno(const char* step) { throw std::system_error(errno, std::system_category(), step); }

}  // namespace

ListenSocket open_listen_socket(const ListenAddress& address) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  if (address.ipv6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&storage);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(address.port);
    inet_pton(AF_INET6, address.host.c_str(), &in6->sin6_addr);
    length = sizeof(sockaddr_in6);
  } else {
    auto* in4 = reinterpret_cast<sockaddr_in*>(&storage);
    in4->sin_family = AF_INET;
    in4->sin_port = htons(address.port);
    inet_pton(AF_INET, address.host.c_str(), &in4->sin_addr);
    length = sizeof(sockaddr_in);
  }

  UniqueFd fd(::socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) throw_errno("socket");
  const int one = 1;
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) throw_errno("setsockopt(SO_REUSEADDR)");
  // Why: every worker has its own socket on the same port; the kernel
  // spreads new connections over them (shared-nothing accept).
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) throw_errno("setsockopt(SO_REUSEPORT)");
  if (address.ipv6 && ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) != 0) {
    throw_errno("setsockopt(IPV6_V6ONLY)");
  }
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&storage), length) != 0) throw_errno("bind");
  if (::listen(fd.get(), kListenBacklog) != 0) throw_errno("listen");

  ListenSocket result{std::move(fd), address};
  sockaddr_storage bound{};
  socklen_t bound_length = sizeof bound;
  if (::getsockname(result.fd.get(), reinterpret_cast<sockaddr*>(&bound), &bound_length) != 0)
    throw_errno("getsockname");
  result.bound.port = ntohs(address.ipv6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                         : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return result;
}

}  // namespace tiffany

// Listening sockets: socket/setsockopt/bind/listen with errors that say which step failed.
#include "server/listen_socket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <system_error>
#include <thread>

namespace tiffany {
namespace {

constexpr int kListenBacklog = 4096;
constexpr std::chrono::milliseconds kProbePatience{200};  // how long an address may stay taken before we give up
constexpr std::chrono::milliseconds kProbeRetryPause{10};

[[noreturn]] void throw_errno(const char* step) { throw std::system_error(errno, std::system_category(), step); }

// A socket bound to `address` with the options every listening socket has;
// with SO_REUSEPORT only when `reuse_port`.
UniqueFd bind_socket(const ListenAddress& address, bool reuse_port) {
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
  // Why SO_REUSEADDR, for the probe too: a restart must not be refused for
  // the previous run's connections still in TIME_WAIT on the port.
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) throw_errno("setsockopt(SO_REUSEADDR)");
  // Why: every worker has its own socket on the same port; the kernel
  // spreads new connections over them (shared-nothing accept).
  if (reuse_port && ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
    throw_errno("setsockopt(SO_REUSEPORT)");
  }
  if (address.ipv6 && ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) != 0) {
    throw_errno("setsockopt(IPV6_V6ONLY)");
  }
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&storage), length) != 0) throw_errno("bind");
  return fd;
}

// The port `fd` is bound to.
std::uint16_t bound_port(int fd, bool ipv6) {
  sockaddr_storage bound{};
  socklen_t bound_length = sizeof bound;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &bound_length) != 0) throw_errno("getsockname");
  return ntohs(ipv6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                    : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

}  // namespace

ListenSocket open_listen_socket(const ListenAddress& address) {
  ListenSocket result{bind_socket(address, true), address};
  if (::listen(result.fd.get(), kListenBacklog) != 0) throw_errno("listen");
  result.bound.port = bound_port(result.fd.get(), address.ipv6);
  return result;
}

ListenAddress probe_unshared_address(const ListenAddress& address) {
  // Why a probe: sockets that all set SO_REUSEPORT (and belong to one user)
  // share a port, so a second server would bind its workers' sockets beside
  // ours and take part of our traffic. A socket without SO_REUSEPORT cannot
  // bind where any socket listens, whatever that one set.
  // Why closed before the workers bind, not kept: not listening, it would
  // not keep a later SO_REUSEPORT socket out. What is left is a race: two
  // servers starting in the same instant can both pass their probes before
  // either listens. That is acceptable; this guards against a mistake, not an
  // adversary (a process of the same user could do worse).
  for (auto waited = std::chrono::milliseconds(0);; waited += kProbeRetryPause) {
    try {
      const UniqueFd probe = bind_socket(address, false);
      ListenAddress checked = address;
      checked.port = bound_port(probe.get(), address.ipv6);
      return checked;
    } catch (const std::system_error& e) {
      // Why retry: the kernel tears down a killed process's io_uring (and the
      // listening sockets its accepts hold) some milliseconds after it dies,
      // so a restart right after a crash would find its predecessor's socket
      // still listening. nginx retries bind() likewise.
      if (e.code() != std::errc::address_in_use || waited >= kProbePatience) throw;
    }
    std::this_thread::sleep_for(kProbeRetryPause);
  }
}

}  // namespace tiffany

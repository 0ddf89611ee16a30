// Socket offers: reading LISTEN_FDS and TIFFANY_LISTEN_FDS, checking each descriptor, grouping by address.
#include "server/socket_offers.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tiffany {
namespace {

constexpr int kSystemdFirstFd = 3;  // SD_LISTEN_FDS_START

int number_from(std::string_view text) {
  int value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc{} && end == text.data() + text.size() ? value : -1;
}

// The address a listening TCP socket is bound to; throws naming `fd` when it is not one.
ListenAddress listening_address(int fd, const char* source) {
  const std::string which = std::string(source) + " descriptor " + std::to_string(fd);
  int listening = 0;
  int type = 0;
  socklen_t length = sizeof listening;
  socklen_t type_length = sizeof type;
  sockaddr_storage bound{};
  socklen_t bound_length = sizeof bound;
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 ||
      ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_length) != 0 || listening == 0 || type != SOCK_STREAM ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &bound_length) != 0 ||
      (bound.ss_family != AF_INET && bound.ss_family != AF_INET6)) {
    throw std::runtime_error(which + " is not a listening TCP socket");
  }
  ListenAddress address;
  char host[INET6_ADDRSTRLEN] = {};
  if (bound.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&bound);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    address.port = ntohs(in6->sin6_port);
    address.ipv6 = true;
  } else {
    const auto* in4 = reinterpret_cast<const sockaddr_in*>(&bound);
    ::inet_ntop(AF_INET, &in4->sin_addr, host, sizeof host);
    address.port = ntohs(in4->sin_port);
  }
  address.host = host;
  return address;
}

void offer(SocketOffers& offers, int fd, const char* source) {
  for (const SocketOffer& existing : offers) {
    for (const ListenSocket& socket : existing.sockets) {
      if (socket.fd.get() == fd) {
        throw std::runtime_error(std::string(source) + " names descriptor " + std::to_string(fd) + " twice");
      }
    }
  }
  const ListenAddress address = listening_address(fd, source);
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  // Why non-blocking: the epoll backend accepts only when told it may.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  for (SocketOffer& existing : offers) {
    if (existing.address.same_endpoint(address)) {
      existing.sockets.push_back(ListenSocket{UniqueFd(fd), address});
      return;
    }
  }
  SocketOffer& added = offers.emplace_back();
  added.address = address;
  added.sockets.push_back(ListenSocket{UniqueFd(fd), address});
}

}  // namespace

SocketOffers take_inherited_sockets() {
  SocketOffers offers;
  const char* pid = std::getenv("LISTEN_PID");
  const char* count = std::getenv("LISTEN_FDS");
  if (pid != nullptr && count != nullptr && number_from(pid) == ::getpid()) {
    const int fds = number_from(count);
    for (int i = 0; i < fds; ++i) offer(offers, kSystemdFirstFd + i, "LISTEN_FDS");
  }
  ::unsetenv("LISTEN_PID");
  ::unsetenv("LISTEN_FDS");
  ::unsetenv("LISTEN_FDNAMES");
  if (const char* list = std::getenv(kInheritedSocketsVariable)) {
    std::string_view rest = list;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const int fd = number_from(rest.substr(0, comma));
      if (fd < 0) throw std::runtime_error(std::string(kInheritedSocketsVariable) + " is not a list of descriptors: " + list);
      offer(offers, fd, kInheritedSocketsVariable);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    ::unsetenv(kInheritedSocketsVariable);
  }
  return offers;
}

bool reuses_port(int fd) {
  int on = 0;
  socklen_t length = sizeof on;
  return ::getsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, &length) == 0 && on != 0;
}

}  // namespace tiffany

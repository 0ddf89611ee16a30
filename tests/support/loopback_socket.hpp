// Test helper: a TCP socket bound to 127.0.0.1 on a free port.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany::testing {

/// A socket bound to 127.0.0.1:<free port>, listening if asked. `address`
/// holds the bound address; `fd` is invalid if any step failed.
struct LoopbackSocket {
  UniqueFd fd;
  sockaddr_in address{};

  explicit LoopbackSocket(bool listening) : fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        (listening && ::listen(fd.get(), 64) != 0) ||
        ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      fd.reset();
    }
  }

  int port() const { return ntohs(address.sin_port); }
};

}  // namespace tiffany::testing

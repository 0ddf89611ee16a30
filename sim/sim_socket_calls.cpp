// SimSocketCalls: the network's answers as system calls answer (-1 and errno).
#include "sim/sim_socket_calls.hpp"

#include <unistd.h>

#include <cerrno>
#include <exception>
#include <string>

namespace tiffany::sim {
namespace {

// A network result (a count, or -errno) as a system call returns it.
long as_call(long result) noexcept {
  if (result >= 0) return result;
  errno = static_cast<int>(-result);
  return -1;
}

}  // namespace

int SimSocketCalls::socket(int domain, int type, int protocol) noexcept {
  if ((domain == AF_INET || domain == AF_INET6) && (type & SOCK_STREAM) == SOCK_STREAM) {
    try {
      return network_.socket();
    } catch (const std::exception&) {
      errno = ENOMEM;
      return -1;
    }
  }
  return kernel().socket(domain, type, protocol);
}

int SimSocketCalls::close(int fd) noexcept {
  if (!network_.owns(fd)) return kernel().close(fd);
  try {
    return static_cast<int>(as_call(network_.close(fd)));
  } catch (const std::exception&) {
    errno = ENOMEM;
    return -1;
  }
}

int SimSocketCalls::shutdown(int fd, int how) noexcept {
  if (!network_.owns(fd)) return kernel().shutdown(fd, how);
  if (how == SHUT_RD) return 0;  // nothing to tell the peer
  try {
    return static_cast<int>(as_call(network_.shutdown_write(fd)));
  } catch (const std::exception&) {
    errno = ENOMEM;
    return -1;
  }
}

int SimSocketCalls::setsockopt(int fd, int level, int name, const void* value, socklen_t length) noexcept {
  if (!network_.owns(fd)) return kernel().setsockopt(fd, level, name, value, length);
  return 0;  // TCP_NODELAY and the like change nothing the simulation models
}

int SimSocketCalls::set_nonblocking(int fd) noexcept {
  return network_.owns(fd) ? 0 : kernel().set_nonblocking(fd);  // simulated calls never wait
}

ssize_t SimSocketCalls::recv(int fd, void* into, std::size_t size, int flags) noexcept {
  if (!network_.owns(fd)) return kernel().recv(fd, into, size, flags);
  return as_call(network_.recv(fd, static_cast<char*>(into), size, flags));
}

ssize_t SimSocketCalls::send(int fd, const void* data, std::size_t size, int flags) noexcept {
  if (!network_.owns(fd)) return kernel().send(fd, data, size, flags);
  try {
    return as_call(network_.send(fd, static_cast<const char*>(data), size));
  } catch (const std::exception&) {
    errno = ENOMEM;
    return -1;
  }
}

int SimSocketCalls::poll(pollfd* fds, nfds_t count, int timeout_ms) noexcept {
  bool any_simulated = false;
  for (nfds_t i = 0; i < count; ++i) any_simulated = any_simulated || network_.owns(fds[i].fd);
  if (!any_simulated) return kernel().poll(fds, count, timeout_ms);
  // Why never waiting: virtual time moves only between steps; a caller that
  // polls simulated sockets gets what is true now.
  int ready = 0;
  for (nfds_t i = 0; i < count; ++i) {
    if (!network_.owns(fds[i].fd)) {
      ready += kernel().poll(&fds[i], 1, 0) > 0 ? 1 : 0;
      continue;
    }
    const std::uint32_t events = network_.readiness(fds[i].fd);
    const std::uint32_t reported = events & (static_cast<std::uint32_t>(fds[i].events) | POLLERR | POLLHUP | POLLNVAL);
    fds[i].revents = static_cast<short>(reported);
    ready += reported != 0 ? 1 : 0;
  }
  return ready;
}

int SimSocketCalls::accept(int listen_fd, sockaddr* address, socklen_t* length, int flags) noexcept {
  if (!network_.owns(listen_fd)) return kernel().accept(listen_fd, address, length, flags);
  return static_cast<int>(as_call(network_.accept(listen_fd, address, length)));
}

ssize_t SimSocketCalls::sendfile(int socket, int file, off_t* offset, std::size_t count) noexcept {
  if (!network_.owns(socket)) return kernel().sendfile(socket, file, offset, count);
  // The file is real; its bytes go through the network as a send would take them.
  char buffer[16 * 1024];
  const ssize_t got = ::pread(file, buffer, std::min(count, sizeof buffer), offset != nullptr ? *offset : 0);
  if (got <= 0) return got;
  const long sent = as_call(network_.send(socket, buffer, static_cast<std::size_t>(got)));
  if (sent > 0 && offset != nullptr) *offset += sent;
  return sent;
}

}  // namespace tiffany::sim

// SimSocketCalls: SocketCalls on the simulated network, the kernel's for every other descriptor.
#pragma once

#include <tiffany/reactor/socket_calls.hpp>

#include "sim/sim_network.hpp"

namespace tiffany::sim {

/// What the server calls on a socket outside the reactor (close, shutdown,
/// a non-blocking try, accept of what is queued, options), answered by the
/// simulated network for its descriptors and by the kernel for the rest
/// (files, pipes). Failures set errno, as the system calls do. A socket(2)
/// for TCP (AF_INET, AF_INET6) is a simulated socket.
class SimSocketCalls final : public SocketCalls {
 public:
  explicit SimSocketCalls(SimNetwork& network) noexcept : network_(network) {}

  int socket(int domain, int type, int protocol) noexcept override;
  int close(int fd) noexcept override;
  int shutdown(int fd, int how) noexcept override;
  int setsockopt(int fd, int level, int name, const void* value, socklen_t length) noexcept override;
  int set_nonblocking(int fd) noexcept override;
  ssize_t recv(int fd, void* into, std::size_t size, int flags) noexcept override;
  ssize_t send(int fd, const void* data, std::size_t size, int flags) noexcept override;
  int poll(pollfd* fds, nfds_t count, int timeout_ms) noexcept override;
  int accept(int listen_fd, sockaddr* address, socklen_t* length, int flags) noexcept override;
  ssize_t sendfile(int socket, int file, off_t* offset, std::size_t count) noexcept override;

 private:
  SimNetwork& network_;
};

}  // namespace tiffany::sim

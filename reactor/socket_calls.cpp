// SocketCalls: the kernel's system calls, and the thread's installed replacement.
#include <tiffany/reactor/socket_calls.hpp>

#include <fcntl.h>
#include <sys/sendfile.h>
#include <unistd.h>

namespace tiffany {
namespace {

class KernelSocketCalls final : public SocketCalls {
 public:
  int socket(int domain, int type, int protocol) noexcept override { return ::socket(domain, type, protocol); }
  int close(int fd) noexcept override { return ::close(fd); }
  int shutdown(int fd, int how) noexcept override { return ::shutdown(fd, how); }
  int setsockopt(int fd, int level, int name, const void* value, socklen_t length) noexcept override {
    return ::setsockopt(fd, level, name, value, length);
  }
  int set_nonblocking(int fd) noexcept override {
    const int flags = ::fcntl(fd, F_GETFL);
    return flags < 0 ? -1 : ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  }
  ssize_t recv(int fd, void* into, std::size_t size, int flags) noexcept override {
    return ::recv(fd, into, size, flags);
  }
  ssize_t send(int fd, const void* data, std::size_t size, int flags) noexcept override {
    return ::send(fd, data, size, flags);
  }
  int poll(pollfd* fds, nfds_t count, int timeout_ms) noexcept override { return ::poll(fds, count, timeout_ms); }
  int accept(int listen_fd, sockaddr* address, socklen_t* length, int flags) noexcept override {
    return ::accept4(listen_fd, address, length, flags);
  }
  ssize_t sendfile(int socket, int file, off_t* offset, std::size_t count) noexcept override {
    return ::sendfile(socket, file, offset, count);
  }
};

KernelSocketCalls g_kernel;

}  // namespace

SocketCalls& SocketCalls::kernel() noexcept { return g_kernel; }

SocketCalls& SocketCalls::current() noexcept { return tls_installed_ != nullptr ? *tls_installed_ : g_kernel; }

SocketCalls::Scope::Scope(SocketCalls& calls) noexcept : previous_(tls_installed_) { tls_installed_ = &calls; }

SocketCalls::Scope::~Scope() { tls_installed_ = previous_; }

}  // namespace tiffany

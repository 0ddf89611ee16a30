// SocketCalls: the socket system calls made outside a reactor's operations, behind one seam.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <cstddef>

namespace tiffany {

/// What Tiffany asks of a descriptor outside the reactor's operations: to
/// make a socket, close any descriptor, half-close, set an option, make it
/// non-blocking, try a receive or a send without waiting, check readiness
/// without waiting, accept what is queued, and sendfile. Each behaves as its
/// system call does (-1 with errno on failure).
///
/// The kernel's by default. A backend that is not the kernel's (the
/// simulation) installs its own on the thread with SocketCalls::Scope, so the
/// code above runs unchanged on either; it passes descriptors it does not
/// own (files, pipes) on to kernel().
class SocketCalls {
 public:
  virtual ~SocketCalls() = default;

  virtual int socket(int domain, int type, int protocol) noexcept = 0;
  virtual int close(int fd) noexcept = 0;
  virtual int shutdown(int fd, int how) noexcept = 0;
  virtual int setsockopt(int fd, int level, int name, const void* value, socklen_t length) noexcept = 0;
  /// fcntl(F_SETFL, | O_NONBLOCK).
  virtual int set_nonblocking(int fd) noexcept = 0;
  /// recv(2); with MSG_DONTWAIT to try without waiting.
  virtual ssize_t recv(int fd, void* into, std::size_t size, int flags) noexcept = 0;
  /// send(2); with MSG_DONTWAIT to try without waiting.
  virtual ssize_t send(int fd, const void* data, std::size_t size, int flags) noexcept = 0;
  virtual int poll(pollfd* fds, nfds_t count, int timeout_ms) noexcept = 0;
  /// accept4(2) on a non-blocking listener: what is queued, or EAGAIN.
  virtual int accept(int listen_fd, sockaddr* address, socklen_t* length, int flags) noexcept = 0;
  virtual ssize_t sendfile(int socket, int file, off_t* offset, std::size_t count) noexcept = 0;

  /// The calling thread's: the installed one, else kernel().
  static SocketCalls& current() noexcept;
  /// The one installed on the calling thread; null: the kernel's calls.
  /// Inline, so UniqueFd (a header-only type) asks without linking Tiffany.
  static SocketCalls* installed() noexcept { return tls_installed_; }
  /// The system calls themselves.
  static SocketCalls& kernel() noexcept;

  /// While it lives, current() on this thread is `calls`. Scopes nest.
  class Scope {
   public:
    explicit Scope(SocketCalls& calls) noexcept;
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    SocketCalls* previous_;
  };

 private:
  // Why visible: a plugin built with hidden visibility must bind to the
  // server's variable, not a private copy (as Scheduler::tls_current_).
  __attribute__((visibility("default"))) static inline thread_local SocketCalls* tls_installed_ = nullptr;
};

}  // namespace tiffany

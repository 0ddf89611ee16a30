// UniqueFd: sole ownership of one file descriptor.
#pragma once

#include <unistd.h>

#include <utility>

#include <tiffany/reactor/socket_calls.hpp>

namespace tiffany {

/// Closes its descriptor on destruction (through SocketCalls, so a simulated
/// socket closes on the simulated network). Move-only.
class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  explicit operator bool() const noexcept { return valid(); }
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) {
      if (SocketCalls* calls = SocketCalls::installed()) {
        calls->close(fd_);
      } else {
        ::close(fd_);
      }
    }
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace tiffany

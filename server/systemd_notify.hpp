// SystemdNotify: sd_notify's datagram protocol (READY=1, STOPPING=1) without libsystemd.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <string>
#include <string_view>

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany {

/// Tells the service manager about start-up and shutdown when it asked to be
/// told (NOTIFY_SOCKET set, as systemd does for Type=notify): each state is
/// one datagram to that Unix socket, a path or, starting with '@', an
/// abstract name. Without NOTIFY_SOCKET every call does nothing.
///
/// Main thread only. The socket is opened by the constructor, so a later
/// privilege drop does not matter.
class SystemdNotify {
 public:
  /// Reads NOTIFY_SOCKET; throws std::runtime_error if it is set but unusable
  /// (not an absolute path or '@' name, or too long).
  SystemdNotify();
  SystemdNotify(const SystemdNotify&) = delete;
  SystemdNotify& operator=(const SystemdNotify&) = delete;

  bool enabled() const noexcept { return static_cast<bool>(socket_); }
  /// Sends `state` ("READY=1", "STOPPING=1", lines joined by '\n'); a failure
  /// is logged as a warning, never thrown: the server serves on regardless.
  void notify(std::string_view state) const noexcept;

 private:
  UniqueFd socket_;
  sockaddr_un address_{};
  socklen_t address_length_ = 0;
};

}  // namespace tiffany

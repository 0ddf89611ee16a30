// SystemdNotify: parsing NOTIFY_SOCKET and sending one datagram per state.
#include "server/systemd_notify.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "server/log/error_log.hpp"

namespace tiffany {

SystemdNotify::SystemdNotify() {
  const char* given = std::getenv("NOTIFY_SOCKET");
  if (given == nullptr || *given == '\0') return;
  const std::string_view name(given);
  if (name.front() != '/' && name.front() != '@') {
    throw std::runtime_error("NOTIFY_SOCKET \"" + std::string(name) + "\" is neither an absolute path nor an @abstract name");
  }
  if (name.size() >= sizeof address_.sun_path) {
    throw std::runtime_error("NOTIFY_SOCKET \"" + std::string(name) + "\" is too long for a Unix socket address");
  }
  address_.sun_family = AF_UNIX;
  std::memcpy(address_.sun_path, name.data(), name.size());
  // An abstract name has a NUL where the '@' is, and no terminating NUL: its length says where it ends.
  if (name.front() == '@') address_.sun_path[0] = '\0';
  address_length_ = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
  socket_ = UniqueFd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!socket_) throw std::system_error(errno, std::system_category(), "NOTIFY_SOCKET: socket");
}

void SystemdNotify::notify(std::string_view state) const noexcept {
  if (!socket_) return;
  const ssize_t sent = ::sendto(socket_.get(), state.data(), state.size(), MSG_NOSIGNAL,
                                reinterpret_cast<const sockaddr*>(&address_), address_length_);
  if (sent < 0) {
    error_log().log(LogLevel::warn, "cannot notify the service manager (%.*s): %s", static_cast<int>(state.size()),
                    state.data(), std::strerror(errno));
  }
}

}  // namespace tiffany

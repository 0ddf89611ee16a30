// IoResult: what an I/O awaitable returns; errors are values, not exceptions.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

namespace tiffany {

/// The kernel's answer to one operation: a non-negative value (bytes moved,
/// an accepted fd, poll revents) or an errno.
class IoResult {
 public:
  constexpr explicit IoResult(int raw = 0) noexcept : raw_(raw) {}

  constexpr bool ok() const noexcept { return raw_ >= 0; }
  constexpr explicit operator bool() const noexcept { return ok(); }
  /// Bytes transferred; meaningful when ok().
  constexpr std::size_t bytes() const noexcept { return static_cast<std::size_t>(raw_); }
  /// The non-negative value (fd, revents, byte count); meaningful when ok().
  constexpr int value() const noexcept { return raw_; }
  /// The errno, or 0 when ok().
  constexpr int error() const noexcept { return ok() ? 0 : -raw_; }
  std::string message() const { return ok() ? std::string("ok") : std::string(std::strerror(error())); }

 private:
  int raw_;
};

}  // namespace tiffany

// Wire: one connection to the conformance server (plain TCP or TLS) as the
// runner and the HTTP/2 client see it: send bytes, receive with a timeout.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace tiffany::testing {

class Wire {
 public:
  virtual ~Wire() = default;
  virtual bool ready() const = 0;
  virtual bool send(std::string_view bytes) = 0;
  /// Appends what arrives within `timeout`; false if nothing did (then closed() says whether the server closed).
  virtual bool receive(std::string& into, std::chrono::milliseconds timeout) = 0;
  virtual bool closed() const = 0;
};

}  // namespace tiffany::testing

// ConnectTest: a reactor test (one per backend) that runs tcp_connect to completion on its scheduler.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <tiffany/coro/syscalls.hpp>
#include <tiffany/net/tcp_connect.hpp>

#include "unit/reactor/reactor_fixture.hpp"

namespace tiffany {

class ConnectTest : public ReactorTest {
 protected:
  /// Connects to `host`:`port` in a task and runs the scheduler until it is
  /// done; an `other` error if the connect never finished.
  ConnectResult connect(const std::string& host, int port, ConnectOptions options = {}) {
    std::optional<ConnectResult> result;
    auto run = [](std::string name, std::uint16_t to, ConnectOptions settings,
                  std::optional<ConnectResult>& out) -> Task<void> {
      out.emplace(co_await tcp_connect(std::move(name), to, std::move(settings)));
    };
    (void)scheduler().spawn(run(host, static_cast<std::uint16_t>(port), std::move(options), result));
    scheduler().run();
    if (!result) return ConnectError{ConnectErrorKind::other, "the connect did not finish"};
    return std::move(*result);
  }
};

}  // namespace tiffany

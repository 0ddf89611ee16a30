// load_run.hpp: the timed loop of loadtest's reactor clients — a TCP connect with
// TCP_NODELAY, and N connection tasks run on one io_uring reactor until a deadline.
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <utility>

#include <tiffany/coro/syscalls.hpp>
#include <tiffany/reactor/connect.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "reactor/engine/reactor_factory.hpp"

namespace tiffany::loadtest {

using Clock = std::chrono::steady_clock;

/// A TCP connection to `server` with TCP_NODELAY set. On failure prints
/// "<who>: connect: <reason>" to stderr and returns an empty UniqueFd.
inline Task<UniqueFd> connect_tcp(const sockaddr_in& server, const char* who) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const IoResult connected = co_await Connect{fd.get(), reinterpret_cast<const sockaddr*>(&server), sizeof server};
  if (!connected) {
    std::fprintf(stderr, "%s: connect: %s\n", who, connected.message().c_str());
    co_return UniqueFd();
  }
  const int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  co_return std::move(fd);
}

/// Spawns `make_task(deadline)` `connections` times on a fresh io_uring reactor and
/// Scheduler, deadline being `duration_seconds` from now, and runs them all to their
/// end (each task stops itself at the deadline). Returns the seconds that took.
template <typename MakeTask>
double run_until_deadline(int connections, double duration_seconds, MakeTask&& make_task) {
  const ChosenReactor reactor = make_reactor(BackendChoice::io_uring);  // throws where io_uring is refused
  Scheduler scheduler(reactor.reactor.get());
  const auto start = Clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(duration_seconds));
  for (int i = 0; i < connections; ++i) (void)scheduler.spawn(make_task(deadline));
  scheduler.run();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace tiffany::loadtest

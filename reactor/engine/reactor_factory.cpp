// Choosing the I/O backend, with an io_uring probe; and telling it.
#include "reactor/engine/reactor_factory.hpp"

#include <liburing.h>

#include <cstring>
#include <system_error>

#include "reactor/internal/epoll_reactor.hpp"
#include "reactor/internal/uring_reactor.hpp"

namespace tiffany {
namespace {

// Sets up a tiny ring and runs one no-op through it; empty if io_uring works.
std::string probe_io_uring() {
  io_uring ring{};
  int rc = io_uring_queue_init(4, &ring, 0);
  if (rc < 0) return std::string("io_uring set-up failed: ") + std::strerror(-rc);
  io_uring_sqe* sqe = io_uring_get_sqe(&ring);
  io_uring_prep_nop(sqe);
  io_uring_sqe_set_data64(sqe, 1);
  io_uring_cqe* cqe = nullptr;
  rc = io_uring_submit_and_wait(&ring, 1);
  if (rc >= 0) rc = io_uring_peek_cqe(&ring, &cqe);
  if (rc >= 0 && cqe != nullptr) rc = cqe->res;
  io_uring_queue_exit(&ring);
  return rc < 0 ? std::string("an io_uring no-op failed: ") + std::strerror(-rc) : std::string();
}

}  // namespace

ChosenReactor make_reactor(BackendChoice choice) {
  if (choice == BackendChoice::epoll) return {std::make_unique<EpollReactor>(), "chosen in the config"};
  if (choice == BackendChoice::io_uring) return {std::make_unique<UringReactor>(), "chosen in the config"};
  const std::string problem = probe_io_uring();
  if (problem.empty()) {
    try {
      return {std::make_unique<UringReactor>(), "probed and working"};
    } catch (const std::system_error& e) {
      return {std::make_unique<EpollReactor>(), std::string("fallback: ") + e.what(), true};
    }
  }
  return {std::make_unique<EpollReactor>(), "fallback: " + problem, true};
}

}  // namespace tiffany

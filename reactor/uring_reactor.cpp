// UringReactor: ring set-up, SQE preparation, batched submit and reap.
#include "reactor/uring_reactor.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <system_error>

namespace tiffany {
namespace {

// user_data of SQEs whose completions nobody waits for (cancel requests).
constexpr std::uint64_t kInternalUserData = 1;
// user_data of the read on the wake-up eventfd.
constexpr std::uint64_t kWakeUserData = 2;

int setup_ring(io_uring& ring, unsigned entries, unsigned& flags_used) {
  // Why: try the fastest flag set first; older kernels reject unknown flags with EINVAL.
  const unsigned attempts[] = {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, IORING_SETUP_SINGLE_ISSUER, 0};
  int rc = -EINVAL;
  for (unsigned flags : attempts) {
    io_uring_params params{};
    params.flags = flags | IORING_SETUP_CQSIZE;
    params.cq_entries = entries * 4;  // room for many in-flight receives
    rc = io_uring_queue_init_params(entries, &ring, &params);
    if (rc == 0) {
      flags_used = flags;
      return 0;
    }
    if (rc != -EINVAL) break;
  }
  return rc;
}

}  // namespace

UringReactor::UringReactor(unsigned entries) {
  const int rc = setup_ring(ring_, entries, setup_flags_);
  if (rc < 0) throw std::system_error(-rc, std::system_category(), "io_uring set-up failed");
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    const int error = errno;
    io_uring_queue_exit(&ring_);
    throw std::system_error(error, std::system_category(), "eventfd");
  }
}

UringReactor::~UringReactor() {
  io_uring_queue_exit(&ring_);  // also drops the pending wake read
  ::close(wake_fd_);
}

void UringReactor::wake() noexcept {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof one);  // EAGAIN: already signalled
}

void UringReactor::arm_wake_read() {
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_read(sqe, wake_fd_, &wake_value_, sizeof wake_value_, 0);
  io_uring_sqe_set_data64(sqe, kWakeUserData);
  wake_armed_ = true;
}

std::string UringReactor::describe() const {
  std::string text = "io_uring";
  if (setup_flags_ & IORING_SETUP_DEFER_TASKRUN) {
    text += " (single issuer, deferred task run)";
  } else if (setup_flags_ & IORING_SETUP_SINGLE_ISSUER) {
    text += " (single issuer)";
  }
  return text;
}

io_uring_sqe* UringReactor::next_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {
    // Why: the submission queue is full; hand it to the kernel and carry on.
    io_uring_submit(&ring_);
    unsubmitted_ = 0;
    sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) throw std::system_error(EBUSY, std::system_category(), "io_uring submission queue full");
  }
  ++unsubmitted_;
  return sqe;
}

void UringReactor::start(IoOperation& op) {
  const IoRequest& r = op.request();
  io_uring_sqe* sqe = next_sqe();
  switch (r.kind) {
    case IoKind::poll: io_uring_prep_poll_add(sqe, r.fd, r.poll_mask); break;
    case IoKind::recv: io_uring_prep_recv(sqe, r.fd, r.buffer, r.length, r.flags); break;
    case IoKind::send: io_uring_prep_send(sqe, r.fd, r.buffer, r.length, r.flags | MSG_NOSIGNAL); break;
    case IoKind::accept: io_uring_prep_accept(sqe, r.fd, r.address, r.address_length, SOCK_CLOEXEC); break;
    case IoKind::connect: io_uring_prep_connect(sqe, r.fd, r.address, r.connect_length); break;
  }
  io_uring_sqe_set_data(sqe, &op);
  ++in_flight_;
}

void UringReactor::cancel_async(IoOperation& op) noexcept {
  try {
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_cancel(sqe, &op, 0);
    io_uring_sqe_set_data64(sqe, kInternalUserData);
  } catch (const std::system_error&) {
    cancel(op);       // no room to queue it: cancel and wait now...
    op.complete_canceled();  // ...and wake the task, which cancel() left orphaned
  }
}

void UringReactor::cancel(IoOperation& op) noexcept {
  op.orphan();
  io_uring_sqe* sqe = nullptr;
  try {
    sqe = next_sqe();
  } catch (const std::system_error&) {
    std::fputs("tiffany: cannot cancel an io_uring operation: ring unusable\n", stderr);
    std::abort();
  }
  io_uring_prep_cancel(sqe, &op, 0);
  io_uring_sqe_set_data64(sqe, kInternalUserData);
  // Why: the operation's memory (and its buffer) belongs to a frame that is
  // going away; wait until the kernel has posted its completion.
  while (op.in_flight()) {
    const int rc = io_uring_submit_and_wait(&ring_, 1);
    unsubmitted_ = 0;
    if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
      std::fprintf(stderr, "tiffany: io_uring_enter failed while canceling: %s\n", std::strerror(-rc));
      std::abort();
    }
    reap();
  }
}

void UringReactor::poll(std::optional<std::chrono::nanoseconds> timeout) {
  if (!wake_armed_ && timeout != std::chrono::nanoseconds::zero()) arm_wake_read();
  enter(timeout);
  reap();
}

void UringReactor::enter(std::optional<std::chrono::nanoseconds> timeout) {
  int rc = 0;
  if (!timeout) {
    rc = io_uring_submit_and_wait(&ring_, 1);
  } else if (timeout->count() == 0) {
    if (unsubmitted_ == 0 && !(setup_flags_ & IORING_SETUP_DEFER_TASKRUN)) return;  // nothing to do in the kernel
    rc = io_uring_submit_and_get_events(&ring_);
  } else {
    __kernel_timespec ts{};
    ts.tv_sec = timeout->count() / 1'000'000'000;
    ts.tv_nsec = timeout->count() % 1'000'000'000;
    io_uring_cqe* cqe = nullptr;
    rc = io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr);
  }
  unsubmitted_ = 0;
  if (rc < 0 && rc != -ETIME && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
    throw std::system_error(-rc, std::system_category(), "io_uring_enter");
  }
}

void UringReactor::reap() noexcept {
  io_uring_cqe* cqe = nullptr;
  unsigned head = 0;
  unsigned seen = 0;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    ++seen;
    if (cqe->user_data == kInternalUserData) continue;
    if (cqe->user_data == kWakeUserData) {
      wake_armed_ = false;  // another thread woke us; re-armed before the next wait
      continue;
    }
    --in_flight_;
    static_cast<IoOperation*>(io_uring_cqe_get_data(cqe))->complete(cqe->res);
  }
  io_uring_cq_advance(&ring_, seen);
}

}  // namespace tiffany

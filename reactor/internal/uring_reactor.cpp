// UringReactor: ring set-up, SQE preparation, batched submit and reap.
#include "reactor/internal/uring_reactor.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include <tiffany/reactor/splice.hpp>

#include "reactor/engine/spare_read_buffers.hpp"

namespace tiffany {
namespace {

// user_data of SQEs whose completions nobody waits for (cancel requests).
constexpr std::uint64_t kInternalUserData = 1;
// user_data of the read on the wake-up eventfd.
constexpr std::uint64_t kWakeUserData = 2;
// The provided-buffer group pooled receives draw from.
constexpr std::uint16_t kBufferGroup = 0;

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
  setup_buffer_ring();
}

UringReactor::~UringReactor() {
  io_uring_queue_exit(&ring_);  // also drops the pending wake read and the buffer ring
  if (buffer_ring_ != nullptr) ::munmap(buffer_ring_, kProvidedBuffers * sizeof(io_uring_buf));
  ::close(wake_fd_);
}

void UringReactor::setup_buffer_ring() noexcept {
  const std::size_t ring_bytes = kProvidedBuffers * sizeof(io_uring_buf);
  void* ring = ::mmap(nullptr, ring_bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (ring == MAP_FAILED) return;
  io_uring_buf_reg registration{};
  registration.ring_addr = reinterpret_cast<std::uint64_t>(ring);
  registration.ring_entries = kProvidedBuffers;
  registration.bgid = kBufferGroup;
  if (io_uring_register_buf_ring(&ring_, &registration, 0) != 0) {  // before 5.19: spares only
    ::munmap(ring, ring_bytes);
    return;
  }
  buffer_ring_ = static_cast<io_uring_buf_ring*>(ring);
  io_uring_buf_ring_init(buffer_ring_);
  // Why not zeroed: pages the kernel never writes into stay out of the RSS.
  provided_memory_.reset(new char[kProvidedBuffers * kReadBufferSize]);
  const int mask = io_uring_buf_ring_mask(kProvidedBuffers);
  for (unsigned id = 0; id < kProvidedBuffers; ++id) {
    io_uring_buf_ring_add(buffer_ring_, provided_memory_.get() + id * kReadBufferSize, kReadBufferSize,
                          static_cast<unsigned short>(id), mask, static_cast<int>(id));
  }
  io_uring_buf_ring_advance(buffer_ring_, kProvidedBuffers);
}

void UringReactor::give_back(std::uint32_t id, char* data) noexcept {
  io_uring_buf_ring_add(buffer_ring_, data, kReadBufferSize, static_cast<unsigned short>(id),
                        io_uring_buf_ring_mask(kProvidedBuffers), 0);
  io_uring_buf_ring_advance(buffer_ring_, 1);
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
  if (op.request().kind == IoKind::recv_pooled && buffer_ring_ == nullptr) {
    op.lend_buffer(SpareReadBuffers::for_this_thread().take());
  }
  prepare(next_sqe(), op);
  ++in_flight_;
}

void UringReactor::prepare(io_uring_sqe* sqe, IoOperation& op) {
  const IoRequest& r = op.request();
  if (r.kind == kSpliceKind) {  // not a named IoKind (see splice.hpp), so not a case below
    const auto& ends = *static_cast<const SpliceEnds*>(r.buffer);
    io_uring_prep_splice(sqe, ends.in, -1, ends.out, -1, static_cast<unsigned>(r.length),
                         static_cast<unsigned>(r.flags));
  }
  switch (r.kind) {
    case IoKind::poll: io_uring_prep_poll_add(sqe, r.fd, r.poll_mask); break;
    case IoKind::recv:
      io_uring_prep_recv(sqe, r.fd, r.buffer, r.length, r.flags);
      if (r.poll_first) sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
      break;
    case IoKind::recv_pooled:
      io_uring_prep_recv(sqe, r.fd, r.buffer, r.length, r.flags);
      if (r.poll_first) sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
      if (!op.has_buffer()) {  // the kernel picks one from the ring when bytes arrive
        sqe->flags |= IOSQE_BUFFER_SELECT;
        sqe->buf_group = kBufferGroup;
      }
      break;
    case IoKind::send: io_uring_prep_send(sqe, r.fd, r.buffer, r.length, r.flags | MSG_NOSIGNAL); break;
    case IoKind::send_message:
      io_uring_prep_sendmsg(sqe, r.fd, static_cast<const msghdr*>(r.buffer), static_cast<unsigned>(r.flags | MSG_NOSIGNAL));
      break;
    case IoKind::accept: io_uring_prep_accept(sqe, r.fd, r.address, r.address_length, SOCK_CLOEXEC); break;
    case IoKind::connect: io_uring_prep_connect(sqe, r.fd, r.address, r.connect_length); break;
  }
  io_uring_sqe_set_data(sqe, &op);
}

bool UringReactor::settle_pooled_receive(IoOperation& op, const io_uring_cqe& cqe) {
  if (cqe.flags & IORING_CQE_F_BUFFER) {
    const std::uint32_t id = cqe.flags >> IORING_CQE_BUFFER_SHIFT;
    op.lend_buffer(ReadLease(*this, id, provided_memory_.get() + std::size_t{id} * kReadBufferSize, 0));
    return true;
  }
  if (cqe.res != -ENOBUFS || op.has_buffer()) return true;
  // Why: every ring buffer is lent out (many connections got bytes in one
  // batch); the bytes are waiting, so a receive into a spare finishes at once.
  try {
    op.lend_buffer(SpareReadBuffers::for_this_thread().take());
    prepare(next_sqe(), op);
    return false;
  } catch (...) {
    return true;  // no memory or no room: report ENOBUFS
  }
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
    auto& op = *static_cast<IoOperation*>(io_uring_cqe_get_data(cqe));
    if (op.request().kind == IoKind::recv_pooled && !settle_pooled_receive(op, *cqe)) continue;
    --in_flight_;
    op.complete(cqe->res);
  }
  io_uring_cq_advance(&ring_, seen);
}

}  // namespace tiffany

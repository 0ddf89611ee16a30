// UringReactor: the io_uring backend. One ring per thread, one submit per loop turn.
#pragma once

#include <liburing.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <tiffany/reactor/reactor.hpp>
#include <tiffany/reactor/read_lease.hpp>

namespace tiffany {

/// io_uring implementation of Reactor. Operations queue SQEs as tasks park;
/// poll() submits them all and reaps every available completion in one batch.
///
/// Pooled receives (RecvPooled) use a provided-buffer ring of
/// kProvidedBuffers buffers: the kernel picks one only when bytes arrive, so
/// a connection waiting for input holds no memory of ours. When the ring is
/// empty (-ENOBUFS) the receive is retried into a spare buffer; kernels
/// without buffer rings use spares throughout.
class UringReactor final : public Reactor, private ReadBufferOwner {
 public:
  /// Sets up the ring, preferring SINGLE_ISSUER and DEFER_TASKRUN.
  /// Throws std::system_error when io_uring is unavailable (EPERM, ENOSYS, ...).
  explicit UringReactor(unsigned entries = 4096);
  ~UringReactor() override;

  void start(IoOperation& op) override;
  void cancel(IoOperation& op) noexcept override;
  void cancel_async(IoOperation& op) noexcept override;
  void poll(std::optional<std::chrono::nanoseconds> timeout) override;
  bool has_pending() const noexcept override { return in_flight_ > 0; }
  void wake() noexcept override;
  std::string describe() const override;
  bool queues_operations() const noexcept override { return true; }

  static constexpr unsigned kProvidedBuffers = 64;  // a power of two

 private:
  void setup_buffer_ring() noexcept;
  void give_back(std::uint32_t id, char* data) noexcept override;
  void prepare(io_uring_sqe* sqe, IoOperation& op);
  /// A pooled receive's completion: lends its buffer, or retries into a
  /// spare when the ring had none; false if it is not finished yet.
  bool settle_pooled_receive(IoOperation& op, const io_uring_cqe& cqe);

  io_uring_sqe* next_sqe();
  void arm_wake_read();
  void enter(std::optional<std::chrono::nanoseconds> timeout);
  void reap() noexcept;

  io_uring ring_{};
  unsigned setup_flags_ = 0;
  std::size_t in_flight_ = 0;  // operations whose completion is still due
  unsigned unsubmitted_ = 0;   // SQEs queued since the last submit
  int wake_fd_ = -1;           // eventfd other threads write to end a wait
  std::uint64_t wake_value_ = 0;
  bool wake_armed_ = false;  // a read on wake_fd_ is in the ring
  io_uring_buf_ring* buffer_ring_ = nullptr;  // shared with the kernel; null without ring support
  std::unique_ptr<char[]> provided_memory_;   // kProvidedBuffers x kReadBufferSize
};

}  // namespace tiffany

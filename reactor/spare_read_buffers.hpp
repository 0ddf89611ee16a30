// SpareReadBuffers: this thread's heap read buffers, reused last-in first-out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "reactor/read_lease.hpp"

namespace tiffany {

/// Read buffers for pooled receives where the kernel does not pick one: the
/// epoll backend, io_uring without a provided-buffer ring (or with it empty),
/// and TLS. Last in, first out, so a few hot buffers serve a whole worker;
/// at most `kMaxKept` wait for reuse, the rest are freed.
class SpareReadBuffers final : public ReadBufferOwner {
 public:
  static constexpr std::size_t kMaxKept = 256;

  /// The calling thread's.
  static SpareReadBuffers& for_this_thread() noexcept;

  SpareReadBuffers(const SpareReadBuffers&) = delete;
  SpareReadBuffers& operator=(const SpareReadBuffers&) = delete;
  ~SpareReadBuffers();

  /// A buffer of kReadBufferSize bytes, size() 0.
  ReadLease take();
  void give_back(std::uint32_t id, char* data) noexcept override;
  /// Buffers waiting for reuse (for tests).
  std::size_t kept() const noexcept { return kept_.size(); }

 private:
  SpareReadBuffers() = default;

  std::vector<char*> kept_;
};

}  // namespace tiffany

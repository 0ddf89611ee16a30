// SpareBuffers: a per-thread stack of heap buffers of one size, reused last-in first-out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <tiffany/reactor/read_lease.hpp>

namespace tiffany {

/// Heap buffers of kBufferBytes lent as ReadLeases (size() counts the bytes
/// written) and taken back when the lease is dropped. Last in, first out, so
/// a few hot buffers serve a whole worker; at most kMaxKept wait for reuse,
/// the rest are freed. One instance per thread and per instantiation (see
/// SpareReadBuffers and tls::SpareOutputBuffers); not thread-safe.
template <std::size_t kBufferBytes, std::size_t kMaxKeptBuffers>
class SpareBuffers final : public ReadBufferOwner {
 public:
  static constexpr std::size_t kBytes = kBufferBytes;
  static constexpr std::size_t kMaxKept = kMaxKeptBuffers;

  /// The calling thread's.
  static SpareBuffers& for_this_thread() noexcept {
    thread_local SpareBuffers buffers;
    alive_ = true;
    return buffers;
  }

  SpareBuffers(const SpareBuffers&) = delete;
  SpareBuffers& operator=(const SpareBuffers&) = delete;
  ~SpareBuffers() {
    alive_ = false;  // only the thread's own instance is ever destroyed while leases live
    for (char* data : kept_) delete[] data;
  }

  /// A buffer of kBytes, size() 0. Throws std::bad_alloc.
  ReadLease take() {
    char* data = nullptr;
    if (kept_.empty()) {
      data = new char[kBytes];
    } else {
      data = kept_.back();
      kept_.pop_back();
    }
    return ReadLease(*this, 0, data, 0);
  }

  void give_back(std::uint32_t, char* data) noexcept override {
    if (alive_ && kept_.size() < kMaxKept) {
      try {
        kept_.push_back(data);
        return;
      } catch (...) {  // no memory to remember it: free it instead
      }
    }
    delete[] data;
  }

  /// Frees all but `most` of the buffers waiting for reuse (after a burst,
  /// so that what it needed does not stay resident).
  void shrink_to(std::size_t most) noexcept {
    while (kept_.size() > most) {
      delete[] kept_.back();
      kept_.pop_back();
    }
  }
  /// Buffers waiting for reuse (for tests).
  std::size_t kept() const noexcept { return kept_.size(); }

 private:
  SpareBuffers() = default;

  // Why: a lease dropped during thread exit, after this thread's buffers are
  // gone, must still free its memory; a trivially destructible thread_local
  // stays readable then, where the destroyed object's members would not.
  static inline thread_local bool alive_ = false;

  std::vector<char*> kept_;
};

}  // namespace tiffany

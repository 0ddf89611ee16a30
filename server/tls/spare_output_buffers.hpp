// SpareOutputBuffers: this thread's buffers for ciphertext on its way out, reused last-in first-out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "reactor/read_lease.hpp"

namespace tiffany::tls {

/// Buffers of kBytes for the records a TLS connection has produced and the
/// socket has not taken yet (CiphertextBuffers holds one only while it
/// holds output). Why not SpareReadBuffers' 16 KiB: a full record is a
/// little more than 16 KiB, and several records in one buffer go out in one
/// Send, so a download wakes its peer once per 64 KiB, not per 16 KiB (a
/// tenth of the server's CPU). Last in, first out, so a few hot buffers
/// serve a whole worker; at most kMaxKept wait for reuse, the rest are freed.
/// The leases they lend are ReadLeases (size() counts the bytes written).
class SpareOutputBuffers final : public ReadBufferOwner {
 public:
  static constexpr std::size_t kBytes = 64 * 1024;
  static constexpr std::size_t kMaxKept = 64;

  /// The calling thread's.
  static SpareOutputBuffers& for_this_thread() noexcept;

  SpareOutputBuffers(const SpareOutputBuffers&) = delete;
  SpareOutputBuffers& operator=(const SpareOutputBuffers&) = delete;
  ~SpareOutputBuffers();

  /// A buffer of kBytes, size() 0. Throws std::bad_alloc.
  ReadLease take();
  void give_back(std::uint32_t id, char* data) noexcept override;
  /// Buffers waiting for reuse (for tests).
  std::size_t kept() const noexcept { return kept_.size(); }

 private:
  SpareOutputBuffers() = default;

  std::vector<char*> kept_;
};

}  // namespace tiffany::tls

// ReadLease: a read buffer lent to one receive, handed back when dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

namespace tiffany {

/// Size of every pooled read buffer.
inline constexpr std::size_t kReadBufferSize = 16 * 1024;

/// Whoever lends read buffers: the io_uring reactor's provided-buffer ring,
/// or SpareReadBuffers.
class ReadBufferOwner {
 public:
  virtual void give_back(std::uint32_t id, char* data) noexcept = 0;

 protected:
  ~ReadBufferOwner() = default;
};

/// The bytes of one pooled receive. Idle connections hold none: a buffer is
/// taken when bytes arrive and goes back to its pool when the lease is
/// dropped (or reset), so memory follows the connections that are busy.
/// Move-only; used on the thread that received.
class ReadLease {
 public:
  ReadLease() noexcept = default;
  ReadLease(ReadBufferOwner& owner, std::uint32_t id, char* data, std::size_t size) noexcept
      : owner_(&owner), data_(data), size_(static_cast<std::uint32_t>(size)), id_(id) {}
  ReadLease(ReadLease&& other) noexcept
      : owner_(std::exchange(other.owner_, nullptr)),
        data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        id_(other.id_) {}
  ReadLease& operator=(ReadLease&& other) noexcept {
    if (this != &other) {
      reset();
      owner_ = std::exchange(other.owner_, nullptr);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      id_ = other.id_;
    }
    return *this;
  }
  ~ReadLease() { reset(); }

  /// Hands the buffer back now.
  void reset() noexcept {
    if (owner_ != nullptr) give_back();
    data_ = nullptr;
    size_ = 0;
  }
  bool holds_buffer() const noexcept { return owner_ != nullptr; }
  char* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  /// Sets how many of the buffer's kReadBufferSize bytes hold data.
  void set_size(std::size_t size) noexcept { size_ = static_cast<std::uint32_t>(size); }
  std::string_view bytes() const noexcept { return {data_, size_}; }

 private:
  // Why out of line: leases are moved from a park to a task to a protocol,
  // and each moved-from one is reset; with the give-back inlined (the
  // compiler guesses its target) reset stopped being inlined and cost ~20
  // instructions per lease, ~200 per request, mostly for empty leases.
  [[gnu::noinline]] void give_back() noexcept { std::exchange(owner_, nullptr)->give_back(id_, data_); }

  ReadBufferOwner* owner_ = nullptr;
  char* data_ = nullptr;
  std::uint32_t size_ = 0;  // at most kReadBufferSize
  std::uint32_t id_ = 0;
};

}  // namespace tiffany

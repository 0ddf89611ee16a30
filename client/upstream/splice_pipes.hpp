// SplicePipes: this worker's pipes for splicing proxied bodies, reused so a request creates none of its own.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany::upstream {

/// A pipe's two ends and how many bytes it holds.
struct SplicePipe {
  UniqueFd read_end;
  UniqueFd write_end;
  std::size_t capacity = 0;  ///< what one splice into it may move (its F_GETPIPE_SZ)
};

class SplicePipes;

/// A pipe lent for one body. `held` counts the bytes spliced into it and not
/// yet out: the lease gives the pipe back on destruction only when it is
/// empty; a pipe left holding bytes (an error, a cancellation) is closed, so
/// no body's bytes can ever reach another client.
class PipeLease {
 public:
  std::size_t held = 0;  ///< bytes in the pipe now

  PipeLease(SplicePipes& owner, SplicePipe pipe) noexcept : owner_(&owner), pipe_(std::move(pipe)) {}
  PipeLease(PipeLease&& other) noexcept
      : owner_(std::exchange(other.owner_, nullptr)), pipe_(std::move(other.pipe_)) {
    held = other.held;
  }
  PipeLease& operator=(PipeLease&&) = delete;
  PipeLease(const PipeLease&) = delete;
  ~PipeLease();

  int read_end() const noexcept { return pipe_.read_end.get(); }
  int write_end() const noexcept { return pipe_.write_end.get(); }
  std::size_t capacity() const noexcept { return pipe_.capacity; }

 private:
  SplicePipes* owner_;
  SplicePipe pipe_;
};

/// One per worker thread: empty pipes kept for reuse (at most kKept), each
/// sized to kPipeBytes where the system allows (F_SETPIPE_SZ; else the
/// default 64 KiB). The worker clears it when it ends, closing them.
class SplicePipes {
 public:
  static constexpr std::size_t kPipeBytes = 256 * 1024;
  static constexpr std::size_t kKept = 16;

  /// This worker's pipes (its scheduler's; see worker_local).
  static SplicePipes& for_this_thread();
  SplicePipes() = default;
  SplicePipes(const SplicePipes&) = delete;
  SplicePipes& operator=(const SplicePipes&) = delete;

  /// An empty pipe, kept or new; nullopt when none can be made (out of
  /// descriptors, or pipe memory past the user's limit): copy instead.
  std::optional<PipeLease> take();
  /// Closes the kept pipes (the worker's end, or a memory trim).
  void clear() noexcept { kept_.clear(); }
  std::size_t kept() const noexcept { return kept_.size(); }
  /// Pipes made since the thread started (a test of reuse reads it).
  std::size_t made() const noexcept { return made_; }

 private:
  friend class PipeLease;
  void give_back(SplicePipe pipe);

  std::vector<SplicePipe> kept_;
  std::size_t made_ = 0;
};

}  // namespace tiffany::upstream

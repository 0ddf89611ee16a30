// SplicePipes: make (sized, non-blocking, close-on-exec), keep and lend pipes; a pipe holding bytes is never kept.
#include "client/upstream/splice_pipes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "coro/engine/worker_local.hpp"

namespace tiffany::upstream {

PipeLease::~PipeLease() {
  if (owner_ == nullptr || !pipe_.read_end) return;
  // Why closed rather than drained: the bytes are some other body's tail;
  // reading them out would cost what splicing saved, and closing is certain.
  if (held == 0) owner_->give_back(std::move(pipe_));
}

SplicePipes& SplicePipes::for_this_thread() { return worker_local<SplicePipes>(); }

std::optional<PipeLease> SplicePipes::take() {
  if (!kept_.empty()) {
    SplicePipe pipe = std::move(kept_.back());
    kept_.pop_back();
    return PipeLease(*this, std::move(pipe));
  }
  int ends[2];
  if (::pipe2(ends, O_NONBLOCK | O_CLOEXEC) != 0) return std::nullopt;
  SplicePipe pipe{UniqueFd(ends[0]), UniqueFd(ends[1]), 0};
  // Why larger than the default 64 KiB: each pass moves up to a pipe's worth
  // with two system calls, so a 1 MiB body takes 4 passes, not 16. A refusal
  // (past fs.pipe-max-size or the user's pipe pages) keeps the default.
  (void)::fcntl(pipe.write_end.get(), F_SETPIPE_SZ, static_cast<int>(kPipeBytes));
  const int size = ::fcntl(pipe.write_end.get(), F_GETPIPE_SZ);
  pipe.capacity = size > 0 ? static_cast<std::size_t>(size) : 64 * 1024;
  ++made_;
  return PipeLease(*this, std::move(pipe));
}

void SplicePipes::give_back(SplicePipe pipe) {
  if (kept_.size() >= kKept) return;  // closed as it goes
  kept_.push_back(std::move(pipe));
}

}  // namespace tiffany::upstream

// SpareReadBuffers: a per-thread stack of heap buffers.
#include "reactor/spare_read_buffers.hpp"

namespace tiffany {
namespace {
// Why: a lease dropped during thread exit, after this thread's buffers are
// gone, must still free its memory; trivially destructible, so readable then.
thread_local bool t_spares_alive = false;
}  // namespace

SpareReadBuffers& SpareReadBuffers::for_this_thread() noexcept {
  thread_local SpareReadBuffers buffers;
  t_spares_alive = true;
  return buffers;
}

SpareReadBuffers::~SpareReadBuffers() {
  t_spares_alive = false;  // only the thread's own instance is ever destroyed while leases live
  for (char* data : kept_) delete[] data;
}

ReadLease SpareReadBuffers::take() {
  char* data = nullptr;
  if (kept_.empty()) {
    data = new char[kReadBufferSize];
  } else {
    data = kept_.back();
    kept_.pop_back();
  }
  return ReadLease(*this, 0, data, 0);
}

void SpareReadBuffers::give_back(std::uint32_t, char* data) noexcept {
  if (t_spares_alive && kept_.size() < kMaxKept) {
    try {
      kept_.push_back(data);
      return;
    } catch (...) {  // no memory to remember it: free it instead
    }
  }
  delete[] data;
}

}  // namespace tiffany

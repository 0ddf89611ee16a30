// SpareOutputBuffers: a per-thread stack of heap buffers.
#include "server/tls/spare_output_buffers.hpp"

namespace tiffany::tls {
namespace {
// Why: a lease dropped during thread exit, after this thread's buffers are
// gone, must still free its memory; trivially destructible, so readable then.
thread_local bool t_spares_alive = false;
}  // namespace

SpareOutputBuffers& SpareOutputBuffers::for_this_thread() noexcept {
  thread_local SpareOutputBuffers buffers;
  t_spares_alive = true;
  return buffers;
}

SpareOutputBuffers::~SpareOutputBuffers() {
  t_spares_alive = false;  // only the thread's own instance is ever destroyed while leases live
  for (char* data : kept_) delete[] data;
}

ReadLease SpareOutputBuffers::take() {
  char* data = nullptr;
  if (kept_.empty()) {
    data = new char[kBytes];
  } else {
    data = kept_.back();
    kept_.pop_back();
  }
  return ReadLease(*this, 0, data, 0);
}

void SpareOutputBuffers::give_back(std::uint32_t, char* data) noexcept {
  if (t_spares_alive && kept_.size() < kMaxKept) {
    try {
      kept_.push_back(data);
      return;
    } catch (...) {  // no memory to remember it: free it instead
    }
  }
  delete[] data;
}

}  // namespace tiffany::tls

// SpareReadBuffers: this thread's heap read buffers, reused last-in first-out.
#pragma once

#include <tiffany/reactor/read_lease.hpp>

#include "reactor/engine/spare_buffers.hpp"

namespace tiffany {

/// Read buffers for pooled receives where the kernel does not pick one: the
/// epoll backend, io_uring without a provided-buffer ring (or with it empty),
/// and TLS plaintext.
using SpareReadBuffers = SpareBuffers<kReadBufferSize, 256>;

}  // namespace tiffany

// FrameAllocator: recycles coroutine frames per thread, so spawning a task or
// calling a coroutine on the hot path does not go to malloc.
#pragma once

#include <cstddef>

namespace tiffany::detail {

/// Returns storage for a coroutine frame of `size` bytes. Small frames come
/// from a per-thread free list by size class; large ones from operator new.
void* allocate_frame(std::size_t size);
/// Gives a frame back; `size` must be the size it was allocated with. May be
/// called on another thread than the allocating one (the block joins that
/// thread's free list).
void deallocate_frame(void* frame, std::size_t size) noexcept;

}  // namespace tiffany::detail

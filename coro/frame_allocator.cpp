// FrameAllocator: thread-local free lists by 64-byte size class.
#include <tiffany/coro/frame_allocator.hpp>

#include <array>
#include <new>
#include <utility>

namespace tiffany::detail {

// Why: under sanitizers every frame goes to the real allocator, so ASan sees
// each use-after-free instead of a recycled block.
#ifdef TIFFANY_SANITIZED_BUILD
void* allocate_frame(std::size_t size) { return ::operator new(size); }
void deallocate_frame(void* frame, std::size_t) noexcept { ::operator delete(frame); }
#else

namespace {

constexpr std::size_t kGranule = 64;
constexpr std::size_t kClasses = 32;  // frames up to 2 KiB are recycled
constexpr std::size_t kMaxCachedPerClass = 4096;

struct FreeBlock {
  FreeBlock* next;
};

// Set while this thread's cache exists; trivially destructible, so still
// readable by frames freed during thread or process exit.
thread_local bool t_cache_alive = false;

// One thread's cache; frees everything it holds when the thread ends.
class FrameCache {
 public:
  FrameCache() noexcept { t_cache_alive = true; }
  ~FrameCache() {
    t_cache_alive = false;
    for (FreeBlock*& head : heads_) {
      while (head != nullptr) ::operator delete(std::exchange(head, head->next));
    }
  }
  void* take(std::size_t size_class) {
    FreeBlock* block = heads_[size_class];
    if (block == nullptr) return ::operator new((size_class + 1) * kGranule);
    heads_[size_class] = block->next;
    --counts_[size_class];
    return block;
  }
  void give(void* frame, std::size_t size_class) noexcept {
    if (counts_[size_class] >= kMaxCachedPerClass) {  // bound what an idle thread keeps
      ::operator delete(frame);
      return;
    }
    heads_[size_class] = new (frame) FreeBlock{heads_[size_class]};
    ++counts_[size_class];
  }

 private:
  std::array<FreeBlock*, kClasses> heads_{};
  std::array<std::size_t, kClasses> counts_{};
};

thread_local FrameCache t_cache;

constexpr std::size_t size_class_of(std::size_t size) noexcept { return (size - 1) / kGranule; }

}  // namespace

void* allocate_frame(std::size_t size) {
  if (size == 0 || size > kClasses * kGranule) return ::operator new(size);
  return t_cache.take(size_class_of(size));
}

void deallocate_frame(void* frame, std::size_t size) noexcept {
  if (size == 0 || size > kClasses * kGranule || !t_cache_alive) {
    ::operator delete(frame);
    return;
  }
  t_cache.give(frame, size_class_of(size));
}
#endif

}  // namespace tiffany::detail

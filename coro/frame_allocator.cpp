// FrameAllocator: thread-local free lists by 64-byte size class.
#include <tiffany/coro/frame_allocator.hpp>

#include <array>
#include <cstdint>
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

// One thread's free lists. Why plain data (constinit): a thread_local with a
// constructor is reached through an initialisation check on every frame
// allocated and freed; this one is reached directly. The lists are emptied
// at thread exit by ListsReaper, set up with the first block this thread
// allocates; until then (and after it) `alive` is false and frames go
// straight back to the allocator, so frames freed during thread or process
// exit are safe.
struct FreeLists {
  std::array<FreeBlock*, kClasses> heads;
  std::array<std::uint32_t, kClasses> counts;
  bool alive;
};
constinit thread_local FreeLists t_lists{};

struct ListsReaper {
  ListsReaper() noexcept { t_lists.alive = true; }
  ~ListsReaper() {
    t_lists.alive = false;
    for (FreeBlock*& head : t_lists.heads) {
      while (head != nullptr) ::operator delete(std::exchange(head, head->next));
    }
  }
};

[[gnu::noinline]] void* allocate_new_block(std::size_t size_class) {
  thread_local ListsReaper reaper;  // constructed once per thread, here off the fast path
  return ::operator new((size_class + 1) * kGranule);
}

constexpr std::size_t size_class_of(std::size_t size) noexcept { return (size - 1) / kGranule; }

}  // namespace

void* allocate_frame(std::size_t size) {
  if (size == 0 || size > kClasses * kGranule) return ::operator new(size);
  const std::size_t size_class = size_class_of(size);
  FreeBlock* block = t_lists.heads[size_class];
  if (block == nullptr) return allocate_new_block(size_class);
  t_lists.heads[size_class] = block->next;
  --t_lists.counts[size_class];
  return block;
}

void deallocate_frame(void* frame, std::size_t size) noexcept {
  if (size == 0 || size > kClasses * kGranule || !t_lists.alive) {
    ::operator delete(frame);
    return;
  }
  const std::size_t size_class = size_class_of(size);
  if (t_lists.counts[size_class] >= kMaxCachedPerClass) {  // what an idle thread keeps after a burst stays small
    ::operator delete(frame);
    return;
  }
  t_lists.heads[size_class] = new (frame) FreeBlock{t_lists.heads[size_class]};
  ++t_lists.counts[size_class];
}
#endif

}  // namespace tiffany::detail

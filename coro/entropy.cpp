// fill_entropy: getrandom(2), or the thread's installed source.
#include <tiffany/coro/entropy.hpp>

#include <sys/random.h>

#include <cstring>
#include <random>

namespace tiffany {
namespace {
thread_local EntropySource::Fill t_fill = nullptr;
thread_local void* t_context = nullptr;
thread_local std::uint64_t t_epoch = 0;
}  // namespace

void fill_entropy(void* into, std::size_t size) noexcept {
  if (t_fill != nullptr) {
    t_fill(t_context, into, size);
    return;
  }
  auto* bytes = static_cast<unsigned char*>(into);
  std::size_t filled = 0;
  while (filled < size) {
    const ssize_t n = getrandom(bytes + filled, size - filled, 0);
    if (n <= 0) break;
    filled += static_cast<std::size_t>(n);
  }
  if (filled < size) {
    try {
      std::random_device device;  // getrandom refused: still from the system
      for (; filled < size; ++filled) bytes[filled] = static_cast<unsigned char>(device());
    } catch (...) {
      std::memset(bytes + filled, 0x5a, size - filled);  // no source at all: a fixed pattern, never a crash
    }
  }
}

std::uint64_t entropy_epoch() noexcept { return t_epoch; }

EntropySource::EntropySource(Fill fill, void* context) noexcept : previous_fill_(t_fill), previous_context_(t_context) {
  t_fill = fill;
  t_context = context;
  ++t_epoch;
}

EntropySource::~EntropySource() {
  t_fill = previous_fill_;
  t_context = previous_context_;
  ++t_epoch;
}

}  // namespace tiffany

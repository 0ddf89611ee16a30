// fill_entropy: the randomness the server draws (request ids, seeds), from the system or from a driver.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tiffany {

/// Fills `size` bytes at `into` from the system (getrandom(2), else
/// std::random_device), unless an EntropySource on the calling thread supplies them.
void fill_entropy(void* into, std::size_t size) noexcept;

/// Changes whenever an EntropySource begins or ends on the calling thread: a
/// generator seeded from fill_entropy compares it to reseed when it moved.
std::uint64_t entropy_epoch() noexcept;

/// While it lives, fill_entropy() on this thread calls `fill(context, ...)`
/// instead: how a driver of a deterministic run (the simulation) makes
/// every random choice of the server come from its seed. Scopes nest.
class EntropySource {
 public:
  using Fill = void (*)(void* context, void* into, std::size_t size) noexcept;
  EntropySource(Fill fill, void* context) noexcept;
  ~EntropySource();
  EntropySource(const EntropySource&) = delete;
  EntropySource& operator=(const EntropySource&) = delete;

 private:
  Fill previous_fill_;
  void* previous_context_;
};

}  // namespace tiffany

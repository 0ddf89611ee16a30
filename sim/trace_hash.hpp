// TraceHash: one number for everything a simulation run did, in order.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>

namespace tiffany::sim {

/// FNV-1a over every event of a run (I/O completions with a digest of their
/// bytes, task resumptions, clock jumps), in the order they happened. Two
/// runs of one seed must end with the same value; `--trace` also writes each
/// event as a line to `lines`.
class TraceHash {
 public:
  void mix(std::uint64_t value) noexcept {
    for (int i = 0; i < 8; ++i) mix_byte(static_cast<unsigned char>(value >> (8 * i)));
  }
  void mix_bytes(std::string_view bytes) noexcept {
    for (const char c : bytes) mix_byte(static_cast<unsigned char>(c));
  }
  std::uint64_t value() const noexcept { return hash_; }
  std::uint64_t events() const noexcept { return events_; }
  /// Counts one event; its line goes to the trace output, if one is set.
  std::ostream* event() noexcept {
    ++events_;
    return lines_;
  }
  void set_lines(std::ostream* lines) noexcept { lines_ = lines; }

 private:
  void mix_byte(unsigned char byte) noexcept {
    hash_ ^= byte;
    hash_ *= 0x100000001b3ULL;
  }

  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
  std::uint64_t events_ = 0;
  std::ostream* lines_ = nullptr;
};

}  // namespace tiffany::sim

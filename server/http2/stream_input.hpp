// StreamInput: an HTTP/2 request body held as it arrives, until the stream's reader takes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <tiffany/coro/task.hpp>
#include <tiffany/coro/wake_signal.hpp>
#include <tiffany/http/body_reader.hpp>

namespace tiffany::http2 {

/// The bytes of one stream's DATA frames between the connection, which
/// receives them, and the one task reading them (a handler through
/// BodyReader, or a WebSocket through the stream's tunnel). Nothing here
/// bounds what is held: the stream's flow-control window does, since the
/// stream gives the window back only for what was taken.
class StreamInput {
 public:
  // ---- the connection's side ----
  /// `bytes` arrived (a DATA frame's payload); ignored once the input ended.
  void receive(std::string_view bytes);
  /// END_STREAM: what is held is the rest.
  void end() noexcept;
  /// The body will not arrive whole (`why`: too_large, timed_out,
  /// peer_gone): what is held is dropped, and the reader gets `why`.
  void fail(http::BodyStatus why) noexcept;

  // ---- the reader's side ----
  /// Waits until bytes are held, the input ended, or it failed: data when
  /// there is something to take, else how it ended.
  Task<http::BodyStatus> wait();
  /// Takes up to `max` held bytes into `out`; how many.
  std::size_t take(char* out, std::size_t max) noexcept;
  /// Takes everything held: a view valid until the next take.
  std::string_view take_all();

  /// Bytes held, not yet taken.
  std::size_t held() const noexcept { return held_.size() - from_; }
  /// Every byte received so far (for max_body_bytes).
  std::uint64_t received() const noexcept { return received_; }
  /// data while more may come; else how the input ended.
  http::BodyStatus status() const noexcept { return status_; }
  /// END_STREAM came, or the input failed: no more will be held.
  bool finished() const noexcept { return status_ != http::BodyStatus::data; }
  /// The buffer's size, taken bytes not yet dropped included (what it costs, for its tests).
  std::size_t buffered() const noexcept { return held_.size(); }

 private:
  std::string held_;
  std::size_t from_ = 0;   // taken bytes at the front of held_
  std::string taken_;      // take_all()'s last piece
  std::uint64_t received_ = 0;
  http::BodyStatus status_ = http::BodyStatus::data;  // data: more may come; else how it ended
  WakeSignal arrived_;
};

}  // namespace tiffany::http2

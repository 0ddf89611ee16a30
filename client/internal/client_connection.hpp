// ClientConnection: one outbound keep-alive connection: its stream, response parser and read buffer.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/net/byte_stream.hpp>
#include <tiffany/reactor/readiness.hpp>

#include "http/engine/response_parser.hpp"

namespace tiffany::detail {

/// Owned by its pool while idle and by the request (then its exchange) while
/// busy; destroying it closes the socket. The per-exchange fields are set by
/// the request that borrows it.
class ClientConnection {
 public:
  ClientConnection(std::unique_ptr<ByteStream> stream, std::string origin_key, const http::ResponseLimits& limits);
  ClientConnection(const ClientConnection&) = delete;
  ClientConnection& operator=(const ClientConnection&) = delete;

  ByteStream& stream() noexcept { return *stream_; }
  /// The socket under a plain (not TLS) stream, which bytes may be spliced
  /// from; -1 for TLS or a stream of unknown kind.
  int plain_socket() const noexcept { return tls_ ? -1 : fd_; }
  http::ResponseParser& parser() noexcept { return parser_; }
  const http::ResponseParser& parser() const noexcept { return parser_; }
  const std::string& origin_key() const noexcept { return origin_key_; }

  /// Received bytes the parser has not taken yet.
  std::string_view pending() const noexcept { return {buffer_.get() + begin_, end_ - begin_}; }
  void consume(std::size_t count) noexcept { begin_ += count; }
  /// Where the next read lands, read_size() bytes (the buffer is empty:
  /// pending() was all consumed). Grows the buffer first when the last read
  /// filled it: a large body then moves in fewer, larger reads and writes.
  char* read_space();
  std::size_t read_size() const noexcept { return capacity_; }
  void received(std::size_t count) noexcept {
    end_ += count;
    filled_ = end_ == capacity_;
  }
  /// Back to the first size (an idle connection keeps no large buffer).
  void shrink_buffer();

  static constexpr std::size_t kFirstBufferSize = 16 * 1024;
  static constexpr std::size_t kLargestBufferSize = 256 * 1024;

  /// False if the server closed or sent anything while the connection was
  /// idle (a plain socket: any byte or EOF; TLS: EOF or an error, since TLS
  /// 1.3 session tickets may arrive unasked). Free when the connection was
  /// watched while idle (watch_idle); else one non-blocking peek.
  bool usable_after_idle() const noexcept;

  /// Going idle: a plain socket gets a detached poll for input, so that
  /// reuse needs no peek: input while idle (bytes or EOF) marks the
  /// connection dead when the reactor reports it. As with nginx's and
  /// HAProxy's idle upstream connections (watched by their event loops),
  /// input arriving in the reactor turn of the reuse itself is not seen: a
  /// cancelled poll reports only its cancellation. ClientPools calls this
  /// only where a poll costs no system call (io_uring) and while its sweeper
  /// runs, which closes every idle connection when its scheduler ends,
  /// before the reactor goes; closing a watched connection cancels its poll
  /// synchronously (one io_uring_enter), which idle expiry and shutdown pay,
  /// not requests.
  void watch_idle();
  /// Taken for a request: the watch is canceled with the request's own
  /// submission, which it precedes, so a response can never fire it.
  void stop_watching() noexcept;
  /// The watch fired after the connection was taken but before its cancel
  /// was processed (the completion was still queued): the input came while
  /// idle, and the request must not read it as its response.
  bool input_before_request() const noexcept { return input_before_request_; }

  // ---- the current exchange ----
  bool reused = false;               ///< served an earlier request
  std::uint64_t response_bytes = 0;  ///< bytes of the response read so far
  std::chrono::milliseconds first_byte_timeout{0};
  std::chrono::milliseconds read_timeout{0};
  std::optional<Scheduler::Clock::time_point> total_end;
  Scheduler::Clock::time_point idle_since{};

 private:
  std::unique_ptr<ByteStream> stream_;
  int fd_;  // the socket under the stream, for the idle peek (-1: unknown)
  bool tls_;
  std::string origin_key_;
  http::ResponseParser parser_;
  static void on_watch_fired(IoOperation& op, void* self) noexcept;

  std::optional<ReadWait> watch_;  // in flight while watching
  bool watching_ = false;          // idle and watched (not yet taken)
  bool fired_while_idle_ = false;
  bool input_before_request_ = false;
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = kFirstBufferSize;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool filled_ = false;  // the last read filled the buffer
};

}  // namespace tiffany::detail

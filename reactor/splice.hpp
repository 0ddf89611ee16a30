// Splice: splice(2) between a socket and a pipe, so body bytes move without a copy through user space.
#pragma once

#include <fcntl.h>
#include <poll.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include <tiffany/coro/task.hpp>
#include <tiffany/reactor/io_operation.hpp>
#include <tiffany/reactor/io_result.hpp>
#include <tiffany/reactor/readiness.hpp>

namespace tiffany {

/// The operation kind of a Splice. Why not a named IoKind: IoKind is part
/// of the plugin ABI (io_operation.hpp), and a new enumerator changes it;
/// the value after the last named one is free, and only the reactors read it.
inline constexpr IoKind kSpliceKind = static_cast<IoKind>(static_cast<std::uint8_t>(IoKind::send_message) + 1);

/// The two descriptors of a splice: one of them a pipe.
struct SpliceEnds {
  int in;
  int out;
};

/// `IoResult r = co_await Splice(from, to, max, socket, Splice::Waits::readable);`
/// moves up to `max` bytes from `from` to `to` (one of them a pipe) and may
/// move fewer: loop. 0 bytes from a socket means its peer finished sending.
/// `socket` is the end that may have to wait: the source socket (readable)
/// or the destination socket (writable); the pipe end must never have to
/// (splice into an empty pipe, out of one holding bytes). The sockets must
/// be O_NONBLOCK: the kernel's socket splicing takes its blocking from the
/// file, not from SPLICE_F_NONBLOCK.
///
/// The request: `fd` is `socket`, `buffer` points at the SpliceEnds,
/// `length` is `max`, `flags` are SPLICE_F_*, `poll_mask` says which way
/// `socket` waits. Backends: io_uring submits IORING_OP_SPLICE, which the
/// kernel runs on an io-wq worker; a socket that is not ready completes it
/// with -EAGAIN, and the caller waits (ReadWait/WriteWait) and splices
/// again. epoll tries splice(2) at once and waits for readiness itself, so
/// it never reports -EAGAIN. Callers handle -EAGAIN either way.
struct Splice final : IoOperation {
  enum class Waits : std::uint8_t { readable, writable };
  Splice(int from, int to, std::size_t max, int socket, Waits waits) noexcept
      : IoOperation(IoRequest{.kind = kSpliceKind,
                              .fd = socket,
                              .buffer = &ends_,
                              .length = max,
                              .flags = SPLICE_F_NONBLOCK | SPLICE_F_MOVE,
                              .poll_mask = waits == Waits::readable ? std::uint32_t{POLLIN} : std::uint32_t{POLLOUT}}),
        ends_{from, to} {}

 private:
  SpliceEnds ends_;  // Why a member: the request points at it, and the awaitable stays put in its frame
};

/// One Splice that waits for `socket` as long as it must: where the backend
/// answers -EAGAIN (io_uring's worker never waits for a socket), waits for
/// readiness on the ring and splices again. Returns what the first Splice
/// that did not say -EAGAIN returned, or the wait's error.
inline Task<IoResult> splice_when_ready(int from, int to, std::size_t max, int socket, Splice::Waits waits) {
  for (;;) {
    const IoResult moved = co_await Splice(from, to, max, socket, waits);
    if (moved.error() != EAGAIN) co_return moved;
    IoResult ready{0};
    if (waits == Splice::Waits::readable) {
      ready = co_await ReadWait{socket};
    } else {
      ready = co_await WriteWait{socket};
    }
    if (!ready) co_return ready;
  }
}

}  // namespace tiffany

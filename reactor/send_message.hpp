// SendMessage: sendmsg(2) on a socket (scatter-gather) as one io_uring completion.
#pragma once

#include <sys/socket.h>

#include <tiffany/reactor/io_operation.hpp>

namespace tiffany {

/// `IoResult r = co_await SendMessage{fd, &message};` sends the bytes of
/// `message.msg_iov` in order and may send fewer than all of them: advance
/// the vectors and loop. `message` and its vectors must stay put until the
/// operation completes (they live in the awaiting frame). Never raises
/// SIGPIPE: a closed peer is EPIPE.
struct SendMessage final : IoOperation {
  SendMessage(int fd, const msghdr* message, int flags = 0) noexcept
      : IoOperation(IoRequest{
            .kind = IoKind::send_message, .fd = fd, .buffer = const_cast<msghdr*>(message), .flags = flags}) {}
};

}  // namespace tiffany

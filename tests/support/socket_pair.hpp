// Test helper: a connected pair of UNIX stream sockets.
#pragma once

#include <sys/socket.h>

#include <gtest/gtest.h>

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany::testing {

/// Both ends of a fresh socketpair; bytes sent on one arrive on the other.
struct SocketPair {
  UniqueFd a;
  UniqueFd b;
  SocketPair() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    a.reset(fds[0]);
    b.reset(fds[1]);
  }
};

}  // namespace tiffany::testing

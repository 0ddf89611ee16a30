// Test helper: both ends of a fresh non-blocking pipe.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany::testing {

/// A pipe2(O_CLOEXEC | O_NONBLOCK): bytes written to write_end are read from read_end.
struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
  }
};

}  // namespace tiffany::testing

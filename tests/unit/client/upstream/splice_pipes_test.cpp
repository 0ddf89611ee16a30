// SplicePipes: an empty pipe comes back for reuse, one holding bytes is closed, and at most kKept are kept.
#include "client/upstream/splice_pipes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace tiffany::upstream {
namespace {

bool open_fd(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

TEST(SplicePipes, AnEmptyPipeIsKeptAndLentAgain) {
  SplicePipes pipes;
  int read_end = -1;
  {
    std::optional<PipeLease> lease = pipes.take();
    ASSERT_TRUE(lease.has_value());
    read_end = lease->read_end();
    EXPECT_GE(lease->capacity(), 64u * 1024);
    EXPECT_NE(::fcntl(lease->write_end(), F_GETFL) & O_NONBLOCK, 0);
  }
  EXPECT_EQ(pipes.kept(), 1u);
  std::optional<PipeLease> again = pipes.take();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->read_end(), read_end);
  EXPECT_EQ(pipes.made(), 1u);
}

TEST(SplicePipes, APipeLeftHoldingBytesIsClosedNotKept) {
  SplicePipes pipes;
  int read_end = -1;
  int write_end = -1;
  {
    std::optional<PipeLease> lease = pipes.take();
    ASSERT_TRUE(lease.has_value());
    read_end = lease->read_end();
    write_end = lease->write_end();
    ASSERT_EQ(::write(write_end, "left", 4), 4);
    lease->held = 4;  // as a splice cut short leaves it
  }
  EXPECT_EQ(pipes.kept(), 0u);
  EXPECT_FALSE(open_fd(read_end));
  EXPECT_FALSE(open_fd(write_end));
}

TEST(SplicePipes, NoMoreThanKKeptArePooledAndClearClosesThem) {
  SplicePipes pipes;
  {
    std::vector<PipeLease> leases;
    for (std::size_t i = 0; i < SplicePipes::kKept + 3; ++i) leases.push_back(*pipes.take());
  }
  EXPECT_EQ(pipes.kept(), SplicePipes::kKept);
  pipes.clear();
  EXPECT_EQ(pipes.kept(), 0u);
}

}  // namespace
}  // namespace tiffany::upstream

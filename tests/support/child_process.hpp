// spawn_child: fork/exec of a program the tests run (the server, nginx, …) that dies with the test.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tiffany::testing {

/// Where a child's standard streams go: a file path (output files are
/// truncated), or empty to keep the test's own.
struct ChildStreams {
  std::string in;
  std::string out;
  std::string err;
  /// A descriptor the child gets as its descriptor 3, or -1: a listening
  /// socket the test bound, for a peer that takes one (HAProxy's `bind fd@3`),
  /// so no other process can take its port between a probe and the peer's bind.
  int fd3 = -1;
};

/// Starts `program` (a path, or a name looked up in PATH) with `args`. The
/// child gets SIGKILL when the thread that started it ends (tests start
/// children on their main thread), so a test killed by ctest's timeout, or
/// interrupted, leaves no server holding its port, files and CPU behind.
/// Returns the child's pid (-1 if fork failed); an exec that fails exits 127.
pid_t spawn_child(const std::string& program, const std::vector<std::string>& args, const ChildStreams& streams = {});

}  // namespace tiffany::testing

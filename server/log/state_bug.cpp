// report_state_bug: a logged bug, or an abort where the environment asks for one.
#include "server/log/state_bug.hpp"

#include <cstdio>
#include <cstdlib>

#include "server/log/error_log.hpp"

namespace tiffany {

void report_state_bug(const char* machine, const char* from, const char* to) noexcept {
  error_log().log(LogLevel::error, "bug: %s went from %s to %s, which its transitions do not allow; closing it", machine,
                  from, to);
  // Why read each time: a bug is rare, and the tests set the variable before the first one.
  if (std::getenv("TIFFANY_ABORT_ON_BUG") != nullptr) {
    std::fprintf(stderr, "bug: %s: %s -> %s; aborting (TIFFANY_ABORT_ON_BUG)\n", machine, from, to);
    std::abort();
  }
}

}  // namespace tiffany

// ServerStats: the process-wide instance.
#include "handlers/server_stats.hpp"

namespace tiffany {

ServerStats& server_stats() noexcept {
  static ServerStats stats;
  return stats;
}

}  // namespace tiffany

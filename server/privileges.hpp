// Privileges: the config's "user"/"group", resolved at start-up and switched to once every listener is bound.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace tiffany {

struct Config;

/// Who to become: resolved names, so a missing user is refused before binding.
struct RunAs {
  std::string user;
  std::string group;
  uid_t uid = 0;
  gid_t gid = 0;
};

/// Looks up `config.user` and `config.group` (nullopt when no user is set);
/// throws ConfigError at `$.user` or `$.group` when one does not exist.
std::optional<RunAs> resolve_run_as(const Config& config);

/// Becomes `who`: supplementary groups (the user's, from the group database),
/// then the group, then the user (real, effective and saved ids), and checks
/// that root cannot be regained. When the process already runs as that user
/// and group it does nothing; otherwise it must be root. Call once, after
/// binding and before serving; any thread started earlier follows (glibc
/// applies set*id to every thread). Throws std::system_error naming the step.
void drop_privileges(const RunAs& who);

}  // namespace tiffany

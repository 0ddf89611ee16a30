// Privileges: getpwnam/getgrnam at start-up; initgroups, setgid, setuid after binding.
#include "server/privileges.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include "conf/config.hpp"
#include "conf/config_error.hpp"

namespace tiffany {
namespace {

// The getpw*_r/getgr*_r buffer: sysconf's hint, at least 16 KiB.
std::vector<char> lookup_buffer(int which) {
  const long hint = ::sysconf(which);
  return std::vector<char>(hint > 16384 ? static_cast<std::size_t>(hint) : 16384);
}

[[noreturn]] void fail(const char* step, const std::string& who) {
  throw std::system_error(errno, std::system_category(), std::string(step) + " for \"" + who + "\"");
}

}  // namespace

std::optional<RunAs> resolve_run_as(const Config& config) {
  if (config.user.empty()) return std::nullopt;
  RunAs who;
  who.user = config.user;
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer = lookup_buffer(_SC_GETPW_R_SIZE_MAX);
  const int error = ::getpwnam_r(config.user.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (found == nullptr) {
    throw ConfigError(config.file, "$.user",
                      "no user \"" + config.user + "\" on this system" +
                          (error != 0 ? std::string(" (") + std::strerror(error) + ")" : std::string()));
  }
  who.uid = entry.pw_uid;
  who.gid = entry.pw_gid;
  if (config.group.empty()) {
    group primary{};
    group* named = nullptr;
    std::vector<char> group_buffer = lookup_buffer(_SC_GETGR_R_SIZE_MAX);
    (void)::getgrgid_r(who.gid, &primary, group_buffer.data(), group_buffer.size(), &named);
    who.group = named != nullptr ? named->gr_name : std::to_string(who.gid);
    return who;
  }
  who.group = config.group;
  group entry_group{};
  group* named = nullptr;
  std::vector<char> group_buffer = lookup_buffer(_SC_GETGR_R_SIZE_MAX);
  const int group_error =
      ::getgrnam_r(config.group.c_str(), &entry_group, group_buffer.data(), group_buffer.size(), &named);
  if (named == nullptr) {
    throw ConfigError(config.file, "$.group",
                      "no group \"" + config.group + "\" on this system" +
                          (group_error != 0 ? std::string(" (") + std::strerror(group_error) + ")" : std::string()));
  }
  who.gid = named->gr_gid;
  return who;
}

void drop_privileges(const RunAs& who) {
  if (::geteuid() == who.uid && ::getuid() == who.uid && ::getegid() == who.gid && ::getgid() == who.gid) return;
  if (::geteuid() != 0) {
    errno = EPERM;
    fail("switching user (tiffany must start as root or as that user)", who.user);
  }
  // Why this order: setgroups and setgid need root, which setuid gives up.
  if (::initgroups(who.user.c_str(), who.gid) != 0) fail("initgroups", who.user);
  if (::setresgid(who.gid, who.gid, who.gid) != 0) fail("setresgid", who.group);
  if (::setresuid(who.uid, who.uid, who.uid) != 0) fail("setresuid", who.user);
  // Why: a setuid that silently kept a saved root id would be a hole; root
  // regained here means the drop did not happen.
  if (who.uid != 0 && ::setuid(0) == 0) {
    errno = EPERM;
    fail("dropping root for good (setuid(0) still works)", who.user);
  }
}

}  // namespace tiffany

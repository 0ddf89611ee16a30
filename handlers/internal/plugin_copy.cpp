// Plugin copy: remembers the file first loaded from each path; copies a changed one into a memfd.
#include "handlers/internal/plugin_copy.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>

namespace tiffany {
namespace {

struct FileIdentity {
  dev_t device;
  ino_t inode;
  off_t size;
  timespec modified;

  bool operator==(const FileIdentity& other) const noexcept {
    return device == other.device && inode == other.inode && size == other.size &&
           modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec;
  }
};

FileIdentity identity_of(const struct stat& status) {
  return FileIdentity{status.st_dev, status.st_ino, status.st_size, status.st_mtim};
}

// Copies the file into a new memfd; returns its /proc path, or "" when it cannot.
std::string private_copy(const std::string& path, off_t size) {
  const int source = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (source < 0) return "";
  const int copy = ::memfd_create("tiffany-plugin", MFD_CLOEXEC);
  bool copied = copy >= 0;
  for (off_t offset = 0; copied && offset < size;) {
    const ssize_t sent = ::sendfile(copy, source, &offset, static_cast<std::size_t>(size - offset));
    copied = sent > 0;
  }
  ::close(source);
  if (!copied) {
    if (copy >= 0) ::close(copy);
    return "";
  }
  // Why never closed: the library is mapped from it for the process's life
  // (PluginHost keeps libraries mapped), and its number names it to dlopen.
  return "/proc/self/fd/" + std::to_string(copy);
}

}  // namespace

std::string plugin_path_to_load(const std::string& path) {
  // Per path: the file last loaded from it, and the path it was loaded by.
  struct Loaded {
    FileIdentity identity;
    std::string loaded_by;
  };
  static std::map<std::string, Loaded> last_loaded;
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return path;  // the loader says what is wrong with it
  const FileIdentity now = identity_of(status);
  const auto [last, first] = last_loaded.try_emplace(path, Loaded{now, path});
  if (first || last->second.identity == now) return last->second.loaded_by;  // dlopen hands back that library
  std::string copy = private_copy(path, status.st_size);
  if (copy.empty()) return path;
  last->second = Loaded{now, copy};
  return copy;
}

}  // namespace tiffany

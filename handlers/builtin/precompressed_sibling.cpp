// PrecompressedSiblings: which encoded siblings exist (openat2 beneath the root, cached) and which one to serve.
#include "handlers/builtin/precompressed_sibling.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <tiffany/reactor/unique_fd.hpp>

#include "handlers/builtin/mime_types.hpp"
#include "http/engine/compression/accept_encoding.hpp"

namespace tiffany {
namespace {

constexpr std::array<http::Coding, 3> kAllCodings{http::Coding::br, http::Coding::zstd, http::Coding::gzip};

// True when `relative` is a regular file beneath `root_fd`, by the same rules
// the static handler opens files with (nothing outside the root, no magic
// links, non-blocking so a FIFO cannot stall the worker).
bool regular_file_beneath(int root_fd, const std::string& relative) {
  open_how how{};
  how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  const UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, root_fd, relative.c_str(), &how, sizeof how)));
  struct stat info {};
  return fd && ::fstat(fd.get(), &info) == 0 && S_ISREG(info.st_mode);
}

}  // namespace

PrecompressedSiblings::PrecompressedSiblings(const HandlerParams& params) {
  const picojson::value* value = params.json("precompressed");
  const char* expectation = "expected false, true or an array of codings from \"br\", \"zstd\", \"gzip\"";
  if (value == nullptr || (value->is<bool>() && !value->get<bool>())) return;
  if (value->is<bool>()) {
    codings_.assign(kAllCodings.begin(), kAllCodings.end());
    return;
  }
  if (!value->is<picojson::array>() || value->get<picojson::array>().empty()) {
    throw ParamError("precompressed", expectation);
  }
  for (const picojson::value& item : value->get<picojson::array>()) {
    const auto coding = item.is<std::string>() ? http::coding_from_config_name(item.get<std::string>()) : std::nullopt;
    if (!coding) throw ParamError("precompressed", std::string(expectation) + ", got " + item.serialize());
    for (const http::Coding listed : codings_) {
      if (listed == *coding) throw ParamError("precompressed", "\"" + item.get<std::string>() + "\" is listed twice");
    }
    codings_.push_back(*coding);
  }
}

const PrecompressedSiblings::Known& PrecompressedSiblings::siblings_of(int root_fd, const std::string& key) {
  const auto now = std::chrono::steady_clock::now();
  if (const auto it = known_.find(key); it != known_.end() && now - it->second.checked < kValidity) return it->second;
  if (known_.size() >= kMaxEntries) known_.clear();  // crude but bounded, like the file cache
  Known& known = known_[key];
  known.checked = now;
  known.content_type = mime_type_for(key);
  std::string sibling;
  for (const http::Coding coding : codings_) {
    sibling.assign(key).append(http::coding_file_suffix(coding));
    known.present[static_cast<std::size_t>(coding)] = regular_file_beneath(root_fd, sibling);
  }
  return known;
}

PrecompressedChoice PrecompressedSiblings::choose(int root_fd, std::string& key, const http::Request& request,
                                                  http::Response& response) {
  if (codings_.empty()) return {};
  // Why always: whether a sibling exists or not, another Accept-Encoding may
  // get another answer tomorrow; caches must key on it.
  response.headers.add("Vary", "Accept-Encoding");
  if (key.empty() || key.back() == '/') return {};  // a folder: its index is served as it is
  // Why not negotiated twice (once to skip the lookup): the lookup is cached,
  // and a request with no Accept-Encoding is the only common one it spares.
  if (!request.headers.contains("Accept-Encoding")) return {};  // identity: no lookup needed
  const Known& known = siblings_of(root_fd, key);
  std::array<http::Coding, 3> present{};
  std::size_t count = 0;
  for (const http::Coding coding : codings_) {
    if (known.present[static_cast<std::size_t>(coding)]) present[count++] = coding;
  }
  const http::Coding coding = http::negotiate_coding(request.headers, std::span(present.data(), count));
  if (coding == http::Coding::identity) return {};
  PrecompressedChoice choice{coding, known.content_type};
  key.append(http::coding_file_suffix(coding));
  return choice;
}

}  // namespace tiffany

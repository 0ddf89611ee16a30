// static: files under a root folder, with caching validators and ranges.
#pragma once

#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "handlers/builtin/byte_range.hpp"
#include "handlers/builtin/precompressed_sibling.hpp"

namespace tiffany {

/// Params: `root` (required; relative to the config file), `index` (default
/// "index.html"), `precompressed` (see PrecompressedSiblings). The file is the route's `*` parameter, or the whole path for
/// routes without one. Serves GET and HEAD with Content-Type by extension,
/// ETag and Last-Modified (If-None-Match / If-Modified-Since → 304) and a
/// single Range (206, or 416). Nothing outside the root is reachable: the
/// kernel resolves every path beneath the root (openat2 RESOLVE_BENEATH), so
/// ".." and symlinks leading out are refused (403). Only regular files are
/// served: a FIFO, socket or device gets 404 at once (opened non-blocking,
/// refused by fstat before any read), so none can stall the worker. A folder
/// without its slash is redirected (301) to a Location percent-encoded from
/// the decoded path. Large files are streamed in pieces, never loaded whole.
///
/// Small files (up to 64 KiB) are kept in memory and served without a system
/// call for up to one second before the file is looked at again (like
/// nginx's open_file_cache), so a changed file shows within a second. A
/// response references the cached bytes (Response::set_body_reference)
/// rather than copying them: evicting an entry, or destroying the handler,
/// while a response still waits to be written leaves that response intact.
/// Not thread-safe: each worker builds its own handlers.
class StaticHandler final : public Handler {
 public:
  explicit StaticHandler(const HandlerParams& params);  // throws ParamError if root is not a folder
  Task<void> handle(http::Request& request, http::Response& response) override;

 private:
  static constexpr std::chrono::seconds kCacheValidity{1};
  static constexpr std::uint64_t kCacheFileLimit = 64 * 1024;
  static constexpr std::size_t kCacheBudget = 32 * 1024 * 1024;  // bytes of file content kept
  static constexpr std::size_t kCacheEntries = 4096;

  // What a response needs to know about a file.
  struct FileFacts {
    std::uint64_t size;
    std::time_t modified;
    std::string etag;
    std::string last_modified;
    std::string content_type;
  };
  struct CachedFile {
    FileFacts facts;
    std::shared_ptr<const std::string> content;  // shared with responses still being written
    std::chrono::steady_clock::time_point checked;
  };
  struct OpenedFile {
    UniqueFd fd;
    struct stat info {};
    std::string name;  // relative to the root, with the index appended for folders
  };

  /// Opens the file the request names; sets an error or redirect response and
  /// returns nullopt when there is none to serve.
  std::optional<OpenedFile> open_file(const std::string& name, http::Request& request, http::Response& response);
  static FileFacts facts_of(const OpenedFile& opened);
  /// Sets validators and `content_type`, answers 304/416, and returns the bytes to send.
  static std::optional<ByteRange> select(const FileFacts& facts, std::string_view content_type,
                                         const http::Request& request, http::Response& response);
  const CachedFile* cached(const std::string& key);
  const CachedFile& remember(const std::string& key, FileFacts facts, std::string content);

  std::string root_;
  std::string index_;
  UniqueFd root_fd_;
  std::unordered_map<std::string, CachedFile> cache_;
  std::size_t cache_bytes_ = 0;
  PrecompressedSiblings precompressed_;
};

}  // namespace tiffany

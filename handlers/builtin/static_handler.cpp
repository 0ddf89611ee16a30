// static: openat2(RESOLVE_BENEATH) under the root, validators, ranges, streaming.
#include "handlers/builtin/static_handler.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include <tiffany/handlers/plugin_logger.hpp>
#include <tiffany/http/http_date.hpp>
#include <tiffany/http/uri.hpp>

#include "handlers/builtin/byte_range.hpp"
#include "handlers/builtin/conditional_request.hpp"
#include "handlers/builtin/mime_types.hpp"

namespace tiffany {
namespace {

// A file that shrank while it was sent (rewritten in place by a deploy, say) cuts its response
// short. As nginx's "sendfile() reported that ... was truncated", the error log says so, and the
// access log marks the line ("incomplete"). Nothing is said when the file is whole: then the
// client went away or stalled, which is no error of the server's.
void report_if_truncated(int fd, const std::string& path, std::uint64_t end, http::Request& request) {
  struct stat now {};
  if (::fstat(fd, &now) != 0 || static_cast<std::uint64_t>(now.st_size) >= end) return;
  request.set_attribute("incomplete", "the file was truncated");
  if (!log_sink().enabled(LogLevel::error)) return;
  log_sink().write(LogLevel::error, "static: \"" + path + "\" was truncated at " + std::to_string(now.st_size) +
                                        " bytes while it was sent (" + std::to_string(end) +
                                        " expected); the response was cut short");
}


// Opens `relative` beneath `root_fd`; the kernel refuses any path (via "..",
// absolute or symlinked components) that would leave the root.
// Why O_NONBLOCK: opening a FIFO for reading blocks until a writer comes (and
// some devices block in open too), which would freeze the worker and every
// connection on it. Non-blocking, open returns at once whatever the file is;
// the caller then refuses anything fstat does not call regular, before any
// read. It changes nothing for regular files: their reads never return EAGAIN.
UniqueFd open_beneath(int root_fd, std::string_view relative, int& error) {
  open_how how{};
  how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  const std::string path = relative.empty() ? std::string(".") : std::string(relative);
  const int fd = static_cast<int>(::syscall(SYS_openat2, root_fd, path.c_str(), &how, sizeof how));
  error = fd < 0 ? errno : 0;
  return UniqueFd(fd);
}

std::string etag_for(const struct stat& info) {
  char text[64];
  const auto mtime_ns = static_cast<unsigned long long>(info.st_mtim.tv_sec) * 1'000'000'000ULL +
                        static_cast<unsigned long long>(info.st_mtim.tv_nsec);
  std::snprintf(text, sizeof text, "\"%llx-%llx\"", mtime_ns, static_cast<unsigned long long>(info.st_size));
  return text;
}

void plain_status(http::Response& response, int status, std::string_view text) {
  response.status = status;
  response.headers.add("Content-Type", "text/plain; charset=utf-8");
  response.body = text;
}

// Reads exactly `length` bytes at `offset` into `into`; throws on failure.
void read_exactly(int fd, char* into, std::size_t length, std::uint64_t offset) {
  while (length > 0) {
    const ssize_t got = ::pread(fd, into, length, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw std::system_error(got < 0 ? errno : EIO, std::system_category(), "reading a static file");
    into += got;
    length -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
}

}  // namespace

StaticHandler::StaticHandler(const HandlerParams& params)
    : root_(params.path("root")), index_(params.string_or("index", "index.html")), precompressed_(params) {
  root_fd_.reset(::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root_fd_) throw ParamError("root", "cannot open \"" + root_ + "\" as a folder: " + std::strerror(errno));
  if (index_.empty() || index_.find('/') != std::string::npos) {
    throw ParamError("index", "expected a file name without '/', got \"" + index_ + "\"");
  }
}

std::optional<StaticHandler::OpenedFile> StaticHandler::open_file(const std::string& name, http::Request& request,
                                                                  http::Response& response) {
  OpenedFile opened;
  opened.name.assign(name);
  int error = 0;
  opened.fd = open_beneath(root_fd_.get(), opened.name, error);
  bool stated = opened.fd && ::fstat(opened.fd.get(), &opened.info) == 0;
  if (stated && S_ISDIR(opened.info.st_mode)) {
    if (!request.path.ends_with('/')) {  // let relative links in the index resolve
      // Why: the path is decoded and a folder's name may hold any byte but
      // '/' and NUL, CR LF included; copied raw it would inject headers.
      std::string location;
      http::append_encoded_path(request.path, location);
      location += '/';
      if (!request.query.empty()) {
        location += '?';
        http::append_encoded_query(request.query, location);
      }
      response.headers.add("Location", location);
      plain_status(response, 301, "moved\n");
      return std::nullopt;
    }
    opened.name += (opened.name.empty() || opened.name.back() == '/') ? index_ : "/" + index_;
    opened.fd = open_beneath(root_fd_.get(), opened.name, error);
    if (!opened.fd && error == ENOENT) error = EACCES;  // a folder without an index: no listing
    stated = opened.fd && ::fstat(opened.fd.get(), &opened.info) == 0;
  }
  if (!opened.fd) {
    // ENXIO (a Unix socket, or a device with no driver behind it, cannot be
    // opened at all) gets 404 like every other file that is not regular.
    const bool forbidden = error == EXDEV || error == ELOOP || error == EACCES || error == EPERM;
    plain_status(response, forbidden ? 403 : 404, forbidden ? "forbidden\n" : "not found\n");
    return std::nullopt;
  }
  if (!stated) {
    plain_status(response, 403, "forbidden\n");
    return std::nullopt;
  }
  if (!S_ISREG(opened.info.st_mode)) {
    // Why 404, as nginx answers "is not a regular file": a FIFO, socket,
    // device or a folder where an index should be is no document this
    // handler serves, and a 403 would tell a prober something is there.
    plain_status(response, 404, "not found\n");
    return std::nullopt;
  }
  return opened;
}

StaticHandler::FileFacts StaticHandler::facts_of(const OpenedFile& opened) {
  return FileFacts{static_cast<std::uint64_t>(opened.info.st_size), opened.info.st_mtim.tv_sec,
                   etag_for(opened.info), http::format_http_date(opened.info.st_mtim.tv_sec),
                   std::string(mime_type_for(opened.name))};
}

std::optional<ByteRange> StaticHandler::select(const FileFacts& facts, std::string_view content_type,
                                               const http::Request& request, http::Response& response) {
  response.headers.add("ETag", facts.etag);
  response.headers.add("Last-Modified", facts.last_modified);
  response.headers.add("Accept-Ranges", "bytes");
  const Validators validators{facts.etag, facts.modified};
  switch (evaluate_preconditions(request, validators, std::time(nullptr))) {
    case Precondition::failed:
      plain_status(response, 412, "precondition failed\n");
      return std::nullopt;
    case Precondition::not_modified:
      response.status = 304;
      return std::nullopt;
    case Precondition::proceed:
      break;
  }
  response.headers.add("Content-Type", content_type);

  ByteRange whole{0, facts.size == 0 ? 0 : facts.size - 1};
  const auto range_header = request.headers.get("Range");
  // Why HEAD too: HEAD answers what GET would, without the body (RFC 9110 §9.3.2).
  if (!range_header || (request.method != "GET" && request.method != "HEAD")) return whole;
  ByteRange range{};
  const RangeOutcome outcome = if_range_allows(request, validators)
                                   ? parse_byte_range(*range_header, facts.size, range)
                                   : RangeOutcome::ignore;
  if (outcome == RangeOutcome::unsatisfiable) {
    response.headers.add("Content-Range", "bytes */" + std::to_string(facts.size));
    plain_status(response, 416, "range not satisfiable\n");
    return std::nullopt;
  }
  if (outcome == RangeOutcome::ignore) return whole;
  response.status = 206;
  response.headers.add("Content-Range", "bytes " + std::to_string(range.first) + "-" + std::to_string(range.last) +
                                            "/" + std::to_string(facts.size));
  return range;
}

const StaticHandler::CachedFile* StaticHandler::cached(const std::string& key) {
  const auto it = cache_.find(key);
  if (it == cache_.end()) return nullptr;
  if (std::chrono::steady_clock::now() - it->second.checked < kCacheValidity) return &it->second;
  cache_bytes_ -= it->second.content->size();
  cache_.erase(it);  // stale: look at the file again
  return nullptr;
}

const StaticHandler::CachedFile& StaticHandler::remember(const std::string& key, FileFacts facts, std::string content) {
  if (cache_bytes_ + content.size() > kCacheBudget || cache_.size() >= kCacheEntries) {
    cache_.clear();  // crude but bounded; a hot set refills in one pass
    cache_bytes_ = 0;
  }
  cache_bytes_ += content.size();
  CachedFile& entry = cache_[key];
  entry = CachedFile{std::move(facts), std::make_shared<const std::string>(std::move(content)),
                     std::chrono::steady_clock::now()};
  return entry;
}

Task<void> StaticHandler::handle(http::Request& request, http::Response& response) {
  if (request.method != "GET" && request.method != "HEAD") {
    response.headers.add("Allow", "GET, HEAD");
    plain_status(response, 405, "method not allowed\n");
    co_return;
  }
  std::string key(request.param("*").value_or(std::string_view(request.path).substr(1)));
  const PrecompressedChoice sibling = precompressed_.choose(root_fd_.get(), key, request, response);
  const CachedFile* entry = cached(key);
  std::optional<OpenedFile> opened;
  if (entry == nullptr) {
    opened = open_file(key, request, response);
    if (!opened) co_return;  // an error or redirect response is set
    if (static_cast<std::uint64_t>(opened->info.st_size) <= kCacheFileLimit) {
      FileFacts facts = facts_of(*opened);
      std::string content(facts.size, '\0');
      read_exactly(opened->fd.get(), content.data(), content.size(), 0);
      entry = &remember(key, std::move(facts), std::move(content));
    }
  }
  // Why a reference: a cached file's facts are read where they are, not copied per request.
  std::optional<FileFacts> uncached;
  if (entry == nullptr) uncached = facts_of(*opened);
  const FileFacts& facts = entry != nullptr ? entry->facts : *uncached;
  const std::string_view content_type = sibling ? sibling.content_type : std::string_view(facts.content_type);
  const std::optional<ByteRange> range = select(facts, content_type, request, response);
  if (!range) co_return;  // 304, 412 or 416
  if (sibling) response.headers.add("Content-Encoding", http::coding_name(sibling.coding));
  const std::uint64_t length = facts.size == 0 ? 0 : range->last - range->first + 1;
  response.set_content_length(length);
  if (request.is_head()) co_return;
  if (entry != nullptr) {
    // Why no copy: the response shares the cached bytes, which outlive the
    // entry (and this handler) until the connection has written them.
    const std::string_view slice =
        std::string_view(*entry->content).substr(static_cast<std::size_t>(range->first), static_cast<std::size_t>(length));
    response.set_body_reference(entry->content, slice);
    co_return;
  }
  // Why send_file: a large file goes from the page cache to the socket, so
  // neither a big file nor a slow reader makes us hold its bytes.
  const http::Delivery sent = co_await response.send_file(opened->fd.get(), range->first, length);
  if (sent == http::Delivery::closed) report_if_truncated(opened->fd.get(), root_ + "/" + key, range->first + length, request);
}

}  // namespace tiffany

// static: files under a root folder, with caching validators and ranges.
#pragma once

#include <string>

#include "handlers/handler.hpp"
#include "handlers/handler_params.hpp"
#include "reactor/unique_fd.hpp"

namespace tiffany {

/// Params: `root` (required; relative to the config file), `index` (default
/// "index.html"). The file is the route's `*` parameter, or the whole path for
/// routes without one. Serves GET and HEAD with Content-Type by extension,
/// ETag and Last-Modified (If-None-Match / If-Modified-Since → 304) and a
/// single Range (206, or 416). Nothing outside the root is reachable: the
/// kernel resolves every path beneath the root (openat2 RESOLVE_BENEATH), so
/// ".." and symlinks leading out are refused (403). Large files are streamed
/// in pieces, never loaded whole.
class StaticHandler final : public Handler {
 public:
  explicit StaticHandler(const HandlerParams& params);  // throws ParamError if root is not a folder
  Task<void> handle(http::Request& request, http::Response& response) override;

 private:
  std::string root_;
  std::string index_;
  UniqueFd root_fd_;
};

}  // namespace tiffany

// PrecompressedSiblings: the static handler's `precompressed` files (app.js.br, .zst, .gz), like nginx's gzip_static.
#pragma once

#include <array>
#include <chrono>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <tiffany/handlers/handler_params.hpp>
#include <tiffany/http/request.hpp>
#include <tiffany/http/response.hpp>

#include "http/engine/compression/coding.hpp"

namespace tiffany {

/// What to serve instead of a file: its sibling encoded with `coding`, under
/// the original's Content-Type. False when the file itself is served.
struct PrecompressedChoice {
  http::Coding coding = http::Coding::identity;
  std::string_view content_type;  // the original's (static storage)
  explicit operator bool() const noexcept { return coding != http::Coding::identity; }
};

/// Param `precompressed`: false (the default), true (br, zstd, gzip) or an
/// array of codings, most preferred first. When on, a request for `name`
/// whose Accept-Encoding accepts one of them (see negotiate_coding) gets the
/// regular file `name.br`, `name.zst` or `name.gz` beside it when there is
/// one: its own bytes, size, ETag and Last-Modified (so Range and
/// conditional requests apply to the encoded representation), the
/// original's Content-Type, and Content-Encoding. Every response of such a
/// route carries `Vary: Accept-Encoding`. Folders (their index file) are
/// served as they are. Which siblings exist is remembered for one second
/// per file, like the handler's file cache. Not thread-safe (per worker).
class PrecompressedSiblings {
 public:
  explicit PrecompressedSiblings(const HandlerParams& params);  // throws ParamError for a bad value

  /// For the file `key` (relative to the root): adds Vary when on, and when
  /// a sibling is to be served appends its suffix to `key` and says which.
  PrecompressedChoice choose(int root_fd, std::string& key, const http::Request& request, http::Response& response);

 private:
  static constexpr std::chrono::seconds kValidity{1};
  static constexpr std::size_t kMaxEntries = 4096;

  struct Known {
    std::array<bool, http::kCodingCount> present{};  // by Coding
    std::string_view content_type;                   // the original's (static storage), looked up once
    std::chrono::steady_clock::time_point checked;
  };
  const Known& siblings_of(int root_fd, const std::string& key);

  std::vector<http::Coding> codings_;  // empty: off
  std::unordered_map<std::string, Known> known_;
};

}  // namespace tiffany

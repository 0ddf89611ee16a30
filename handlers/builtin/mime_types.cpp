// MIME types by file extension.
#include "handlers/builtin/mime_types.hpp"

#include <array>
#include <utility>

#include <tiffany/http/headers.hpp>

namespace tiffany {
namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 30> kTypes{{
    {"html", "text/html; charset=utf-8"},    {"htm", "text/html; charset=utf-8"},
    {"css", "text/css; charset=utf-8"},      {"js", "text/javascript; charset=utf-8"},
    {"mjs", "text/javascript; charset=utf-8"}, {"json", "application/json"},
    {"txt", "text/plain; charset=utf-8"},    {"md", "text/markdown; charset=utf-8"},
    {"xml", "application/xml"},              {"svg", "image/svg+xml"},
    {"png", "image/png"},                    {"jpg", "image/jpeg"},
    {"jpeg", "image/jpeg"},                  {"gif", "image/gif"},
    {"webp", "image/webp"},                  {"avif", "image/avif"},
    {"ico", "image/x-icon"},                 {"woff", "font/woff"},
    {"woff2", "font/woff2"},                 {"ttf", "font/ttf"},
    {"otf", "font/otf"},                     {"pdf", "application/pdf"},
    {"wasm", "application/wasm"},            {"mp4", "video/mp4"},
    {"webm", "video/webm"},                  {"mp3", "audio/mpeg"},
    {"ogg", "audio/ogg"},                    {"wav", "audio/wav"},
    {"zip", "application/zip"},              {"gz", "application/gzip"},
}};

}  // namespace

std::string_view mime_type_for(std::string_view file_name) noexcept {
  const auto dot = file_name.rfind('.');
  const auto slash = file_name.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) {
    return "application/octet-stream";
  }
  const std::string_view extension = file_name.substr(dot + 1);
  for (const auto& [known, type] : kTypes) {
    if (http::iequals(known, extension)) return type;
  }
  return "application/octet-stream";
}

}  // namespace tiffany

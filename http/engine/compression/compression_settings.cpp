// CompressionSettings: media type matching.
#include "http/engine/compression/compression_settings.hpp"

#include <tiffany/http/headers.hpp>

namespace tiffany::http {

bool CompressionSettings::compresses_type(std::string_view content_type) const noexcept {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.remove_suffix(1);
  while (!media.empty() && (media.front() == ' ' || media.front() == '\t')) media.remove_prefix(1);
  const auto slash = media.find('/');
  if (slash == std::string_view::npos) return false;
  for (const std::string& listed : types) {
    if (listed.ends_with("/*")) {
      if (iequals(media.substr(0, slash + 1), std::string_view(listed).substr(0, listed.size() - 1))) return true;
    } else if (iequals(media, listed)) {
      return true;
    }
  }
  return false;
}

}  // namespace tiffany::http

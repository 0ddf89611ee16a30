// Media types: comparing the type, reading a parameter.
#include <tiffany/http/media_type.hpp>

#include <tiffany/http/headers.hpp>

namespace tiffany::http {

bool media_type_is(std::string_view content_type, std::string_view type) noexcept {
  return iequals(trim_ows(content_type.substr(0, content_type.find(';'))), type);
}

std::optional<std::string> media_type_param(std::string_view content_type, std::string_view name) {
  std::size_t i = content_type.find(';');
  while (i != std::string_view::npos && i < content_type.size()) {
    ++i;  // past ';'
    while (i < content_type.size() && (content_type[i] == ' ' || content_type[i] == '\t')) ++i;
    const std::size_t eq = content_type.find('=', i);
    if (eq == std::string_view::npos) return std::nullopt;
    const std::string_view key = trim_ows(content_type.substr(i, eq - i));
    std::string value;
    std::size_t j = eq + 1;
    if (j < content_type.size() && content_type[j] == '"') {  // quoted-string
      for (++j;; ++j) {
        if (j >= content_type.size()) return std::nullopt;  // unterminated
        const char c = content_type[j];
        if (c == '"') break;
        if (c == '\\') {
          if (++j >= content_type.size()) return std::nullopt;
        }
        value += content_type[j];
      }
      ++j;
      while (j < content_type.size() && (content_type[j] == ' ' || content_type[j] == '\t')) ++j;
      if (j < content_type.size() && content_type[j] != ';') return std::nullopt;
    } else {
      const std::size_t end = content_type.find(';', j);
      value = std::string(trim_ows(content_type.substr(j, end == std::string_view::npos ? std::string_view::npos : end - j)));
      j = end == std::string_view::npos ? content_type.size() : end;
    }
    if (iequals(key, name)) return value;
    i = j < content_type.size() ? j : std::string_view::npos;
  }
  return std::nullopt;
}

}  // namespace tiffany::http

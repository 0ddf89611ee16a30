// FormFields: splitting on '&' and '=', decoding each side.
#include <tiffany/http/form_fields.hpp>

#include <tiffany/http/uri.hpp>

namespace tiffany::http {

std::optional<FormFields> FormFields::parse(std::string_view encoded) {
  FormFields form;
  // Why: %00 is refused by percent_decode; a raw NUL must not slip through either.
  if (encoded.find('\0') != std::string_view::npos) return std::nullopt;
  while (!encoded.empty()) {
    const auto amp = encoded.find('&');
    const std::string_view piece = encoded.substr(0, amp);
    encoded = amp == std::string_view::npos ? std::string_view{} : encoded.substr(amp + 1);
    if (piece.empty()) continue;
    const auto eq = piece.find('=');
    Field field;
    if (!percent_decode(piece.substr(0, eq), field.first, /*plus_is_space=*/true)) return std::nullopt;
    if (eq != std::string_view::npos && !percent_decode(piece.substr(eq + 1), field.second, true)) return std::nullopt;
    form.fields_.push_back(std::move(field));
  }
  return form;
}

std::optional<std::string_view> FormFields::get(std::string_view name) const noexcept {
  for (const Field& field : fields_) {
    if (field.first == name) return std::string_view(field.second);
  }
  return std::nullopt;
}

std::vector<std::string_view> FormFields::get_all(std::string_view name) const {
  std::vector<std::string_view> values;
  for (const Field& field : fields_) {
    if (field.first == name) values.emplace_back(field.second);
  }
  return values;
}

}  // namespace tiffany::http

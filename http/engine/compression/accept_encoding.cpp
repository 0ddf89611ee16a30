// Accept-Encoding: a zero-allocation parser of the list and the choice it implies.
#include "http/engine/compression/accept_encoding.hpp"

#include <array>
#include <string_view>

namespace tiffany::http {
namespace {

constexpr int kUnlisted = -1;

// The q-values (0..1000) a request gave; kUnlisted where it named nothing.
struct Weights {
  std::array<int, kCodingCount> coding{kUnlisted, kUnlisted, kUnlisted, kUnlisted};  // by Coding, identity first
  int star = kUnlisted;
};

bool is_ows(char c) noexcept { return c == ' ' || c == '\t'; }

void skip_ows(std::string_view text, std::size_t& at) noexcept {
  while (at < text.size() && is_ows(text[at])) ++at;
}

// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ), as thousandths.
bool parse_qvalue(std::string_view text, std::size_t& at, int& q) noexcept {
  if (at >= text.size() || (text[at] != '0' && text[at] != '1')) return false;
  const bool one = text[at++] == '1';
  q = one ? 1000 : 0;
  if (at >= text.size() || text[at] != '.') return true;
  ++at;
  int scale = 100;
  for (int digits = 0; digits < 3 && at < text.size() && text[at] >= '0' && text[at] <= '9'; ++digits, ++at) {
    if (one && text[at] != '0') return false;
    q += (text[at] - '0') * scale;
    scale /= 10;
  }
  return true;
}

void record(Weights& weights, std::string_view name, int q) noexcept {
  int* slot = nullptr;
  if (name == "*") {
    slot = &weights.star;
  } else if (iequals(name, "gzip") || iequals(name, "x-gzip")) {
    slot = &weights.coding[static_cast<std::size_t>(Coding::gzip)];
  } else if (iequals(name, "br")) {
    slot = &weights.coding[static_cast<std::size_t>(Coding::br)];
  } else if (iequals(name, "zstd")) {
    slot = &weights.coding[static_cast<std::size_t>(Coding::zstd)];
  } else if (iequals(name, "identity")) {
    slot = &weights.coding[static_cast<std::size_t>(Coding::identity)];
  }
  if (slot != nullptr && q > *slot) *slot = q;  // named twice: the kinder weight
}

// Adds one field value's list to `weights`; false if it is not a valid list.
bool parse_list(std::string_view text, Weights& weights) noexcept {
  std::size_t at = 0;
  for (;;) {
    while (at < text.size() && (is_ows(text[at]) || text[at] == ',')) ++at;  // empty elements are allowed
    if (at == text.size()) return true;
    const std::size_t name_start = at;
    while (at < text.size() && is_token_char(text[at])) ++at;
    if (at == name_start) return false;
    const std::string_view name = text.substr(name_start, at - name_start);
    int q = 1000;
    skip_ows(text, at);
    if (at < text.size() && text[at] == ';') {
      ++at;
      skip_ows(text, at);
      if (at + 1 >= text.size() || (text[at] != 'q' && text[at] != 'Q') || text[at + 1] != '=') return false;
      at += 2;
      if (!parse_qvalue(text, at, q)) return false;
      skip_ows(text, at);
    }
    if (at < text.size() && text[at] != ',') return false;
    record(weights, name, q);
  }
}

}  // namespace

Coding negotiate_coding(const Headers& request_headers, std::span<const Coding> offered) noexcept {
  Weights weights;
  bool present = false;
  for (const Headers::Field& field : request_headers) {
    if (field.name.size() != 15 || !iequals(field.name, "Accept-Encoding")) continue;
    present = true;
    if (!parse_list(field.value, weights)) return Coding::identity;  // garbage: as if absent
  }
  if (!present) return Coding::identity;

  Coding best = Coding::identity;
  int best_q = 0;
  for (const Coding coding : offered) {
    int q = weights.coding[static_cast<std::size_t>(coding)];
    if (q == kUnlisted) q = weights.star;
    if (q > best_q) {  // strictly: an equal q keeps the earlier (preferred) coding
      best = coding;
      best_q = q;
    }
  }
  if (best == Coding::identity) return Coding::identity;
  // Identity competes only when the client rated it (by name, or by "*").
  int identity_q = weights.coding[static_cast<std::size_t>(Coding::identity)];
  if (identity_q == kUnlisted) identity_q = weights.star;
  return identity_q > best_q ? Coding::identity : best;
}

}  // namespace tiffany::http

// URI helpers: percent-decoding and -encoding, dot-segment removal.
#include <tiffany/http/uri.hpp>

#include <array>

namespace tiffany::http {
namespace {

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_unreserved(unsigned char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

bool is_sub_delim(unsigned char c) noexcept {
  return std::string_view("!$&'()*+,;=").find(static_cast<char>(c)) != std::string_view::npos;
}

// A byte RFC 3986 allows in a URI only percent-encoded.
bool is_never_in_uri(unsigned char c) noexcept {
  return c < 0x20 || c >= 0x7f || std::string_view(" \"<>\\^`{|}").find(static_cast<char>(c)) != std::string_view::npos;
}

void append_escape(unsigned char c, std::string& out) {
  constexpr char kHex[] = "0123456789ABCDEF";
  out += '%';
  out += kHex[c >> 4];
  out += kHex[c & 0x0f];
}

// Drops the last "/segment" of `out`.
void pop_segment(std::string& out) {
  const auto slash = out.rfind('/');
  out.resize(slash == std::string::npos ? 0 : slash);
}

// True when `path` is already normal: nothing encoded, no "//", "/./", "/../".
bool is_plain(std::string_view path) noexcept {
  if (path.find('%') != std::string_view::npos || path.find("//") != std::string_view::npos) return false;
  for (std::size_t dot = path.find("/."); dot != std::string_view::npos; dot = path.find("/.", dot + 1)) {
    const std::string_view rest = path.substr(dot + 2);
    if (rest.empty() || rest[0] == '/' || (rest[0] == '.' && (rest.size() == 1 || rest[1] == '/'))) return false;
  }
  return true;
}

}  // namespace

bool percent_decode(std::string_view text, std::string& out, bool plus_is_space) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return false;
      const int high = hex_value(text[i + 1]);
      const int low = hex_value(text[i + 2]);
      if (high < 0 || low < 0) return false;
      const char decoded = static_cast<char>(high * 16 + low);
      if (decoded == '\0') return false;
      out.push_back(decoded);
      i += 2;
    } else {
      out.push_back(c == '+' && plus_is_space ? ' ' : c);
    }
  }
  return true;
}

bool normalize_path(std::string_view raw_path, std::string& out) {
  out.clear();
  if (raw_path.empty() || raw_path.front() != '/') return false;
  if (is_plain(raw_path)) {  // the common case: copy as is
    out.assign(raw_path);
    return true;
  }
  std::string decoded;
  if (!percent_decode(raw_path, decoded)) return false;

  bool ends_as_directory = false;  // the last segment was "." or ".."
  for (std::size_t i = 0; i < decoded.size();) {
    std::size_t end = decoded.find('/', i);
    if (end == std::string::npos) end = decoded.size();
    const std::string_view segment = std::string_view(decoded).substr(i, end - i);
    if (segment == "..") {
      pop_segment(out);  // never above the root: popping "" leaves ""
      ends_as_directory = true;
    } else if (segment == ".") {
      ends_as_directory = true;
    } else if (!segment.empty()) {
      out.push_back('/');
      out.append(segment);
      ends_as_directory = false;
    }
    i = end + 1;
  }
  if (out.empty() || ends_as_directory || decoded.back() == '/') out.push_back('/');
  return true;
}

void append_encoded_path(std::string_view path, std::string& out) {
  out.reserve(out.size() + path.size());
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_unreserved(c) || is_sub_delim(c) || c == '/' || c == ':' || c == '@') {
      out += ch;
    } else {
      append_escape(c, out);
    }
  }
}

void append_encoded_query(std::string_view query, std::string& out) {
  out.reserve(out.size() + query.size());
  for (const char ch : query) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_never_in_uri(c)) {
      append_escape(c, out);
    } else {
      out += ch;
    }
  }
}

}  // namespace tiffany::http

namespace tiffany::http {
namespace {

// reg-name: unreserved / sub-delims (RFC 3986 §3.2.2; pct-encoded is
// handled apart), one table lookup per byte (Host is checked on every request).
constexpr std::array<bool, 256> make_reg_name_table() {
  std::array<bool, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (int c = '0'; c <= '9'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (const char c : std::string_view("-._~!$&'()*+,;=")) table[static_cast<unsigned char>(c)] = true;
  return table;
}
constexpr std::array<bool, 256> kRegNameByte = make_reg_name_table();

inline bool is_reg_name_char(char c) noexcept { return kRegNameByte[static_cast<unsigned char>(c)]; }

inline unsigned reg_name_bit(char c) noexcept { return static_cast<unsigned>(is_reg_name_char(c)); }

// True when the eight bytes at `p` may all stand in a reg-name.
inline bool eight_reg_name_chars(const char* p) noexcept {
  return (reg_name_bit(p[0]) & reg_name_bit(p[1]) & reg_name_bit(p[2]) & reg_name_bit(p[3]) & reg_name_bit(p[4]) &
          reg_name_bit(p[5]) & reg_name_bit(p[6]) & reg_name_bit(p[7])) != 0;
}

bool is_hex_digit(char c) noexcept { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

}  // namespace

bool is_valid_host(std::string_view value) noexcept {
  std::size_t i = 0;
  if (!value.empty() && value.front() == '[') {
    // IP-literal: IPv6address or IPvFuture; checked for its alphabet only.
    const auto close = value.find(']');
    if (close == std::string_view::npos || close == 1) return false;
    for (std::size_t k = 1; k < close; ++k) {
      const char c = value[k];
      if (!is_hex_digit(c) && c != ':' && c != '%' && !is_reg_name_char(c)) return false;
    }
    i = close + 1;
  } else {
    for (;;) {
      // Why eight at a time: Host is checked on every request, and eight
      // lookups ANDed under one branch cost half of a byte-at-a-time loop.
      while (value.size() - i >= 8 && eight_reg_name_chars(value.data() + i)) i += 8;
      while (i < value.size() && is_reg_name_char(value[i])) ++i;
      if (i == value.size() || value[i] != '%') break;
      if (i + 2 >= value.size() || !is_hex_digit(value[i + 1]) || !is_hex_digit(value[i + 2])) return false;
      i += 3;  // pct-encoded
    }
    if (i == 0) return false;  // an http URI's host is never empty (RFC 9110 §4.2.1)
  }
  if (i == value.size()) return true;
  if (value[i] != ':') return false;
  for (++i; i < value.size(); ++i) {
    if (value[i] < '0' || value[i] > '9') return false;
  }
  return true;
}

}  // namespace tiffany::http

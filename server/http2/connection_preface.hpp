// The HTTP/2 client connection preface, and how a cleartext connection is told to be HTTP/2.
#pragma once

#include <string_view>

namespace tiffany::http2 {

/// What every HTTP/2 client sends first (RFC 9113 §3.4).
inline constexpr std::string_view kClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// What the first bytes of a cleartext connection say about it.
enum class PrefaceMatch {
  no,        ///< not the preface: HTTP/1
  partial,   ///< a proper prefix of the preface: read more to tell
  complete,  ///< the whole preface: HTTP/2 with prior knowledge
};

inline PrefaceMatch match_preface(std::string_view first) noexcept {
  if (first.size() >= kClientPreface.size()) {
    return first.substr(0, kClientPreface.size()) == kClientPreface ? PrefaceMatch::complete : PrefaceMatch::no;
  }
  return kClientPreface.substr(0, first.size()) == first ? PrefaceMatch::partial : PrefaceMatch::no;
}

}  // namespace tiffany::http2

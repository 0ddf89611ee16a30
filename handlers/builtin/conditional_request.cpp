// Conditional requests: the RFC 9110 §13.2.2 evaluation order and entity-tag comparison.
#include "handlers/builtin/conditional_request.hpp"

#include <optional>

#include <tiffany/http/http_date.hpp>

namespace tiffany {
namespace {

std::string_view trim_ows(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// "*" or a comma-separated list of entity tags; `weak` compares weakly
// (W/ ignored, §8.8.3.2), otherwise a weak tag never matches.
bool etag_listed(std::string_view header, std::string_view etag, bool weak) {
  while (!header.empty()) {
    const auto comma = header.find(',');
    std::string_view candidate = trim_ows(header.substr(0, comma));
    header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    if (candidate == "*") return true;
    if (candidate.starts_with("W/")) {
      if (!weak) continue;
      candidate.remove_prefix(2);
    }
    if (candidate == etag) return true;
  }
  return false;
}

}  // namespace

Precondition evaluate_preconditions(const http::Request& request, const Validators& validators, std::time_t now) {
  const bool get_or_head = request.method == "GET" || request.method == "HEAD";
  // Step 1 and 2: the client's copy must still be current.
  if (const auto if_match = request.headers.get("If-Match")) {
    if (!etag_listed(*if_match, validators.etag, false)) return Precondition::failed;
  } else if (const auto if_unmodified_since = request.headers.get("If-Unmodified-Since")) {
    const std::optional<std::time_t> since = http::parse_http_date(trim_ows(*if_unmodified_since));
    if (since && validators.modified > *since) return Precondition::failed;
  }
  // Step 3 and 4: has the client's cached copy changed?
  if (const auto if_none_match = request.headers.get("If-None-Match")) {
    if (etag_listed(*if_none_match, validators.etag, true)) {
      return get_or_head ? Precondition::not_modified : Precondition::failed;
    }
  } else if (get_or_head) {
    if (const auto if_modified_since = request.headers.get("If-Modified-Since")) {
      const std::optional<std::time_t> since = http::parse_http_date(trim_ows(*if_modified_since));
      // §13.1.3: a date later than the server's clock is invalid: ignored.
      if (since && *since <= now && validators.modified <= *since) return Precondition::not_modified;
    }
  }
  return Precondition::proceed;
}

bool if_range_allows(const http::Request& request, const Validators& validators) {
  const auto if_range = request.headers.get("If-Range");
  if (!if_range) return true;
  const std::string_view value = trim_ows(*if_range);
  if (value.starts_with("W/")) return false;  // a weak tag never allows a range
  if (value.starts_with("\"")) return value == validators.etag;
  const std::optional<std::time_t> date = http::parse_http_date(value);
  return date && *date == validators.modified;
}

}  // namespace tiffany

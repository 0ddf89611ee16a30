// The request-target's forms, the declared body's size and the expectation, judged once for both protocols.
#include "http/engine/request_head_checks.hpp"

#include <tiffany/http/headers.hpp>
#include <tiffany/http/uri.hpp>

namespace tiffany::http {
namespace {

// Splits the request-target into path and query; handles origin-form,
// absolute-form ("http://host/path") when allowed, and asterisk-form ("*").
bool split_target(std::string_view target, TargetForms forms, std::string_view& path, std::string_view& query) {
  if (target == "*") {
    path = target;
    query = {};
    return true;
  }
  if (!target.empty() && target.front() != '/') {
    if (forms != TargetForms::with_absolute) return false;
    const auto scheme_end = target.find("://");
    if (scheme_end == std::string_view::npos) return false;
    // The authority ends at the first '/', '?' or '#'; a missing path means "/".
    const auto authority_end = target.find_first_of("/?#", scheme_end + 3);
    // Why refuse userinfo: RFC 9110 §4.2.4 forbids it in http(s) URIs, and
    // "http://trusted@evil/" reads differently to different parsers.
    const std::string_view authority = target.substr(scheme_end + 3, authority_end - (scheme_end + 3));
    if (authority.find('@') != std::string_view::npos || !is_valid_host(authority)) return false;
    if (authority_end == std::string_view::npos || target[authority_end] != '/') {
      path = "/";
      const auto question = authority_end == std::string_view::npos ? authority_end : target.find('?', authority_end);
      query = question == std::string_view::npos ? std::string_view{} : target.substr(question + 1);
      query = query.substr(0, query.find('#'));
      return true;
    }
    target = target.substr(authority_end);
  }
  const auto question = target.find('?');
  path = target.substr(0, question);
  query = question == std::string_view::npos ? std::string_view{} : target.substr(question + 1);
  const auto fragment = query.find('#');
  if (fragment != std::string_view::npos) query = query.substr(0, fragment);
  return true;
}

}  // namespace

HeadRefusal take_request_target(Request& request, TargetForms forms) {
  std::string_view raw_path;
  std::string_view query;
  if (!split_target(request.target, forms, raw_path, query)) {
    // An origin server does not tunnel: CONNECT (authority-form) is a method it does not implement.
    if (request.method == "CONNECT") return {501, "CONNECT is not supported"};
    return {400, "malformed request-target"};
  }
  if (raw_path == "*") {
    // RFC 9112 §3.2.4: the asterisk-form is only for OPTIONS.
    if (request.method != "OPTIONS" || request.target != "*") return {400, "asterisk-form is only for OPTIONS"};
    request.path = "*";
  } else if (!normalize_path(raw_path, request.path)) {
    return {400, "malformed path"};
  }
  request.query.assign(query);
  return {};
}

}  // namespace tiffany::http

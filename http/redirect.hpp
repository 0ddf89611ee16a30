// redirect(): answering with a redirect to a percent-encoded Location.
#pragma once

#include <string_view>

#include <tiffany/http/http_status.hpp>

namespace tiffany::http {

class Response;

/// Makes `response` a redirect to `location` (a URI reference: a path such
/// as `/files/a b?x=1`, or an absolute URL) with `status` (301, 302, 303,
/// 307 or 308; default 302) and an empty body. Bytes no URI may hold as
/// they are (controls, space, '"', '<', '>', '\\', '^', '`', '{', '|', '}',
/// non-ASCII) are percent-encoded; everything else, valid `%XX` escapes
/// included, is kept, so the Location is always a valid field value. A
/// `%` not followed by two hex digits becomes `%25`. Throws
/// std::invalid_argument for a status that is not a redirect or an empty
/// location.
void redirect(Response& response, std::string_view location, Status status = Status::found);

/// Appends `location` encoded as redirect() writes it (exposed for tests).
void append_encoded_location(std::string_view location, std::string& out);

}  // namespace tiffany::http

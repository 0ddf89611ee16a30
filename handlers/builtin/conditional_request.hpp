// Conditional requests (RFC 9110 §13): evaluating If-Match, If-Unmodified-Since,
// If-None-Match, If-Modified-Since and If-Range against a representation's validators.
#pragma once

#include <ctime>
#include <string_view>

#include <tiffany/http/request.hpp>

namespace tiffany {

enum class Precondition {
  proceed,       ///< no precondition, or all passed: answer as usual
  not_modified,  ///< 304 (GET or HEAD)
  failed,        ///< 412 Precondition Failed
};

/// The validators of the selected representation: a strong ETag (quoted) and
/// its modification time.
struct Validators {
  std::string_view etag;
  std::time_t modified;
};

/// Evaluates the preconditions of `request` in the order of RFC 9110
/// §13.2.2: If-Match (else If-Unmodified-Since), then If-None-Match (else
/// If-Modified-Since for GET and HEAD). Fields that are not valid (a date
/// that does not parse; an If-Modified-Since later than `now`) are ignored.
Precondition evaluate_preconditions(const http::Request& request, const Validators& validators, std::time_t now);

/// If-Range (§13.1.5): true when the Range may be honoured: no If-Range, an
/// entity tag that matches strongly, or a date equal to the modification time.
bool if_range_allows(const http::Request& request, const Validators& validators);

}  // namespace tiffany

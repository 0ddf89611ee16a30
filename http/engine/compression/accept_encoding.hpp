// Accept-Encoding negotiation (RFC 9110 §12.5.3): which coding to send.
#pragma once

#include <span>

#include <tiffany/http/headers.hpp>

#include "http/engine/compression/coding.hpp"

namespace tiffany::http {

/// Chooses the coding for a response to a request with `request_headers`,
/// among `offered` (the server's codings, most preferred first). Rules:
/// - no Accept-Encoding field: identity (what browsers and caches expect);
/// - each offered coding gets its own q-value, else that of `*`, else 0;
///   `x-gzip` counts as `gzip`; names are case-insensitive;
/// - the highest q above 0 wins; equal q-values go to the earlier offered
///   coding; identity wins only with a strictly higher q than every coding;
/// - when nothing is acceptable (even `identity;q=0`), identity anyway: the
///   RFC lets a server disregard the field rather than answer 406;
/// - a field that does not parse (a bad q-value, stray bytes) is treated as
///   absent: identity, never an error.
/// Several Accept-Encoding fields are one list. Allocates nothing.
Coding negotiate_coding(const Headers& request_headers, std::span<const Coding> offered) noexcept;

}  // namespace tiffany::http

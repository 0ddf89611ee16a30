// splice_response: a proxied response's sized body moved from the upstream's socket to the client's by splice.
#pragma once

#include <cstdint>

#include <tiffany/coro/task.hpp>
#include <tiffany/http/response.hpp>

#include "handlers/builtin/proxy/proxy_attempt.hpp"

namespace tiffany::proxy {

/// Sends the body of `attempt`'s response by splice (HAProxy's splice-auto)
/// when it can go byte for byte: the client's connection is HTTP/1.x on a
/// plain socket and its response is neither chunked nor compressed (see
/// SpliceSink), the upstream's connection is plain and its body is framed by
/// Content-Length. The bytes the client already read past the head are
/// written first, through the connection; the rest goes upstream socket →
/// pipe (this worker's, reused) → client socket, counted in
/// tiffany_proxy_spliced_bytes_total.
///
/// What became of the body.
enum class Spliced : std::uint8_t {
  /// Still to be sent (nothing of it went: splicing does not apply, no pipe
  /// could be had, or the body ended in what was already read): the caller
  /// copies it, the head possibly out.
  not_applied,
  /// The response is done: the body went whole, or the client left (its
  /// connection closes; the upstream's is closed, never pooled), or the
  /// upstream cut the body after the head went out, which cut the response
  /// short (Response::cut), as the copying path does, so that the server
  /// ends the client's connection and logs why.
  done,
};
Task<Spliced> splice_response(Attempt& attempt, http::Response& response, UpstreamServerMetrics& metrics);

}  // namespace tiffany::proxy

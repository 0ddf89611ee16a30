// ProxySettings: a proxy route's keys (upstream, path rewriting, headers, timeouts, retries, hedging), read and checked.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <tiffany/handlers/handler_params.hpp>

namespace tiffany::proxy {

/// What makes an attempt worth repeating on another server (`next_upstream`).
struct NextUpstream {
  bool error = true;     // connect, TLS, reset, protocol failure before a response head
  bool timeout = false;  // no response head within first_byte_timeout_ms
  bool status_502 = false, status_503 = false, status_504 = false;
  bool on_status(int status) const noexcept {
    return (status == 502 && status_502) || (status == 503 && status_503) || (status == 504 && status_504);
  }
};

struct ProxySettings {
  std::string upstream;
  std::string strip_prefix;    // empty: the path is sent as it is
  std::string rewrite_prefix;  // what replaces strip_prefix
  std::vector<std::pair<std::string, std::string>> set_headers;
  std::vector<std::string> remove_headers;
  bool pass_host = true;
  bool trust_forwarded = false;
  std::chrono::milliseconds first_byte_timeout{60000};  // request sent → response head; and between body pieces
  std::chrono::milliseconds total_timeout{0};           // the whole exchange; 0: none
  NextUpstream next_upstream;
  int max_tries = 2;
  std::chrono::milliseconds hedge_after{0};  // 0: no hedging
  bool ignore_client_abort = false;  // true: a client that leaves does not cancel the upstream request
  bool splice = true;  // sized bodies over plain sockets go socket to socket (splice) rather than through a buffer
};

/// Reads a proxy route's settings; throws ParamError naming the key for a bad one.
ProxySettings read_proxy_settings(const HandlerParams& params);

}  // namespace tiffany::proxy

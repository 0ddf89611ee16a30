// ClientAbortPolicy: how a built-in handler asks to be canceled when its client leaves while it waits.
#pragma once

#include <tiffany/handlers/handler.hpp>

namespace tiffany {

/// Implemented beside Handler by built-in handlers that wait long on
/// another server (the proxy). When cancel_on_client_abort() is true, the
/// connection watches the client while handle() runs — over HTTP/1.1 once
/// the request body has been read whole, for the peer's FIN or RST (bytes of
/// a pipelined request do not count) — and cancels the handler's task when
/// the client has gone: it sees TaskCanceled where it waits, nothing is
/// answered, and the access log says 499 (nginx's proxy_ignore_client_abort
/// off). Over HTTP/2 a stream's RST_STREAM cancels every handler anyway.
///
/// Why not a virtual of Handler, as streams_request_body() is: a new
/// virtual changes the plugin ABI (kPluginAbiNumber), and only built-in
/// handlers need it today. Asked once per route, when the router is built.
class ClientAbortPolicy {
 public:
  virtual bool cancel_on_client_abort() const noexcept = 0;

 protected:
  ~ClientAbortPolicy() = default;
};

/// True when `handler` (a route's middleware chain: the handler at its end) asks for it.
inline bool cancels_on_client_abort(const Handler& handler) noexcept {
  const auto* policy = dynamic_cast<const ClientAbortPolicy*>(&handler);
  return policy != nullptr && policy->cancel_on_client_abort();
}

}  // namespace tiffany

// ClientError / ClientResult: what an outbound HTTP request came to, as a value.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tiffany {

/// Why a request through HttpClient failed.
enum class ClientErrorKind {
  bad_request,  ///< the URL, method or a field is invalid (nothing was sent)
  resolve,      ///< the host name did not resolve
  connect,      ///< refused or unreachable (nothing listens there)
  tls,          ///< the TLS handshake failed (an untrusted or misnamed certificate…)
  timeout,      ///< a stage took too long: ClientError::stage says which
  protocol,     ///< the response broke HTTP/1.1 framing (malformed, conflicting lengths, a bad chunk, an unexpected
                ///< status)
  too_large,    ///< the response head, trailers or (for fetch) body passed the limits
  truncated,    ///< the server closed (or the connection failed) in the middle of a response
  closed,       ///< the server closed before sending any byte of a response (after the one safe retry)
  io,           ///< the connection failed writing the request (reset, broken pipe)
};

/// Which timeout ran out (with ClientErrorKind::timeout).
enum class ClientStage { none, connect, write, first_byte, read, total };

/// The printable names ("timeout", "first_byte").
std::string_view to_string(ClientErrorKind kind) noexcept;
std::string_view to_string(ClientStage stage) noexcept;

struct ClientError {
  ClientErrorKind kind = ClientErrorKind::io;
  std::string message;  ///< "GET http://127.0.0.1:8080/x: no response head within 30000 ms"
  ClientStage stage = ClientStage::none;
};

/// A value or the ClientError saying why there is none. Cancellation is not
/// an error value: a canceled task unwinds with TaskCanceled, as tcp_connect does.
template <class T>
class [[nodiscard]] ClientResult {
 public:
  ClientResult(T value) : value_(std::move(value)) {}
  ClientResult(ClientError error) : error_(std::move(error)) {}

  bool ok() const noexcept { return value_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  /// Only when ok().
  T& value() & noexcept { return *value_; }
  const T& value() const& noexcept { return *value_; }
  T&& value() && noexcept { return std::move(*value_); }
  T* operator->() noexcept { return &*value_; }
  const T* operator->() const noexcept { return &*value_; }
  /// Only when !ok().
  const ClientError& error() const noexcept { return error_; }

 private:
  std::optional<T> value_;
  ClientError error_;
};

}  // namespace tiffany

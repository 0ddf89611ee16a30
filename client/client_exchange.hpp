// ClientExchange: a response whose head is in and whose body is read piece by piece.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <tiffany/client/client_error.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/http/headers.hpp>

namespace tiffany {

class HttpClient;

namespace detail {
class ClientConnection;
class ClientPools;
}  // namespace detail
namespace upstream {
class ResponseSplice;
}  // namespace upstream

/// One read of a streamed response body.
struct ClientBodyChunk {
  enum class Status : std::uint8_t { data, end, error };
  Status status = Status::end;
  /// With Status::data: the next piece, never empty, valid until the next
  /// read or the exchange's end.
  std::string_view bytes;
  /// True for a piece of data (keep reading).
  explicit operator bool() const noexcept { return status == Status::data; }
};

/// A response whose head is in and whose body is read piece by piece.
///
/// Lifetime: destroying it gives the connection back to its pool only if the
/// body was read to its end and the response allows keep-alive; otherwise
/// the connection is closed (the server sees it close). It is safe to destroy
/// from a canceled task (a hedged request's loser) and after its HttpClient.
/// Use it on the thread that opened it, one read at a time.
class ClientExchange {
 public:
  ClientExchange(ClientExchange&& other) noexcept;
  ClientExchange& operator=(ClientExchange&& other) noexcept;
  ~ClientExchange();

  int status() const noexcept { return status_; }
  const http::Headers& headers() const noexcept { return headers_; }
  /// The next piece of the body, its end, or an error (error() says which).
  /// Each read waits at most the read timeout (and what is left of the total).
  Task<ClientBodyChunk> read();
  /// After a read gave Status::error.
  const ClientError& error() const noexcept { return error_; }
  /// After the end of a chunked body: its trailer fields.
  const http::Headers& trailers() const noexcept { return trailers_; }
  /// True once the body was read to its end.
  bool finished() const noexcept { return finished_; }

 private:
  friend class HttpClient;
  // Why a friend: the proxy's splice (not in the SDK) moves the body past read().
  friend class upstream::ResponseSplice;
  ClientExchange(std::shared_ptr<detail::ClientPools> pools, std::unique_ptr<detail::ClientConnection> connection,
                 std::string what);
  // Gives the connection back (to idle if `reusable`, else closed) and the slot with it.
  void release(bool reusable) noexcept;

  std::shared_ptr<detail::ClientPools> pools_;
  std::unique_ptr<detail::ClientConnection> connection_;
  std::string what_;  // "GET http://host/path", for error messages
  int status_ = 0;
  http::Headers headers_;
  http::Headers trailers_;
  ClientError error_;
  bool finished_ = false;
  bool failed_ = false;
};

}  // namespace tiffany

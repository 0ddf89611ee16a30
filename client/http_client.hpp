// HttpClient: pooled keep-alive HTTP/1.1 requests out of a worker, whole or streamed.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <tiffany/client/client_error.hpp>
#include <tiffany/client/client_exchange.hpp>
#include <tiffany/client/client_options.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/http/body_reader.hpp>
#include <tiffany/http/headers.hpp>

namespace tiffany {

/// One request. `url` is http:// or https://, host (a name, an IPv4 literal
/// or [IPv6]), an optional :port, then path and query ("/" if absent); or,
/// with the client's options.base_url set, a path and query alone ("/x?y").
/// `headers` may not hold Host (see `host`), Content-Length or Transfer-Encoding (the
/// client writes those). The body is `body` (sent with Content-Length), or
/// pieces read from `body_source` one at a time, each written before the
/// next is read (Content-Length: body_length if set, else chunked). The
/// source must outlive the request; a streamed body is never retried.
struct ClientRequest {
  std::string method = "GET";
  std::string url;
  http::Headers headers;
  std::string body;
  http::BodySource* body_source = nullptr;
  std::optional<std::uint64_t> body_length;
  /// The Host field to send (a reverse proxy passing its client's); empty:
  /// the URL's authority. The connection still goes to the URL's origin.
  std::string host;
  /// This request's stage limits instead of the client's options.timeouts
  /// (a proxy route with its own first-byte limit); nullopt: the client's.
  std::optional<ClientTimeouts> timeouts;
};

/// A response read whole.
struct ClientResponse {
  int status = 0;
  http::Headers headers;
  std::string body;
  http::Headers trailers;  ///< of a chunked body
};

/// Sends HTTP/1.1 requests over keep-alive connections pooled per origin
/// (scheme, host, port). Errors are values (ClientResult); a canceled caller
/// unwinds with TaskCanceled and the connection it used is closed.
///
///   HttpClient client;
///   auto reply = co_await client.get("http://127.0.0.1:8080/health");
///   if (reply) use(reply->status, reply->body); else log(reply.error().message);
///
/// Composes with gather, race and with_timeout; the tasks it returns own
/// copies of their arguments.
///
/// Threads and lifetime: an HttpClient belongs to the thread that uses it
/// (a handler, built per worker, may own one as a member, or use
/// for_this_thread()). It may be destroyed while connections sit idle in its
/// pools (they are closed) or while exchanges it opened are alive (their
/// connections close when they end); a task awaiting one of its requests
/// must not outlive it. While connections sit idle, one task of the client
/// sleeps until the oldest expires: a scheduler run "until every task has
/// finished" waits for it unless the client is destroyed (or the scheduler
/// stopped, as a worker is).
namespace detail {
struct OriginUrl;
}  // namespace detail

class HttpClient {
 public:
  /// Throws std::invalid_argument when options.base_url is set but is not an
  /// http:// or https:// origin.
  explicit HttpClient(HttpClientOptions options = {});
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;
  ~HttpClient();

  /// This worker's client with the default options (its scheduler's: one a
  /// worker thread, one a simulated worker), made on first use and
  /// destroyed with the scheduler; outside any scheduler, this thread's.
  static HttpClient& for_this_thread();

  /// Sends the request and reads the whole response (at most
  /// limits.max_body_bytes of body, else too_large).
  Task<ClientResult<ClientResponse>> fetch(ClientRequest request);
  Task<ClientResult<ClientResponse>> get(std::string url);
  Task<ClientResult<ClientResponse>> post(std::string url, std::string body, std::string content_type);
  /// Sends the request and returns once the final response head is in (1xx
  /// skipped); the body is read from the exchange.
  Task<ClientResult<ClientExchange>> open(ClientRequest request);

  const HttpClientOptions& options() const noexcept { return options_; }
  /// Idle connections in the pools, and connections lent out now (for tests and metrics).
  std::size_t idle_connections() const noexcept;
  std::size_t busy_connections() const noexcept;

 private:
  HttpClientOptions options_;
  std::shared_ptr<detail::ClientPools> pools_;
  std::shared_ptr<const detail::OriginUrl> base_;  // options_.base_url parsed once; null when empty
};

}  // namespace tiffany

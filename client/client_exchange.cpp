// ClientExchange: a streamed response body read piece by piece; the connection goes back to the pool only after its
// end.
#include <tiffany/client/client_exchange.hpp>

#include <utility>

#include "client/internal/client_pools.hpp"
#include "client/internal/response_error.hpp"
#include "client/internal/response_events.hpp"

namespace tiffany {

ClientExchange::ClientExchange(std::shared_ptr<detail::ClientPools> pools,
                               std::unique_ptr<detail::ClientConnection> connection, std::string what)
    : pools_(std::move(pools)), connection_(std::move(connection)), what_(std::move(what)) {}

ClientExchange::ClientExchange(ClientExchange&& other) noexcept = default;

ClientExchange& ClientExchange::operator=(ClientExchange&& other) noexcept {
  if (this != &other) {
    release(false);
    pools_ = std::move(other.pools_);
    connection_ = std::move(other.connection_);
    what_ = std::move(other.what_);
    status_ = other.status_;
    headers_ = std::move(other.headers_);
    trailers_ = std::move(other.trailers_);
    error_ = std::move(other.error_);
    finished_ = other.finished_;
    failed_ = other.failed_;
  }
  return *this;
}

// Why closing a connection whose body was not read to its end, rather than
// draining it: the rest may be large or never come, and a cut connection is
// what a canceled hedge's upstream should see.
ClientExchange::~ClientExchange() { release(false); }

void ClientExchange::release(bool reusable) noexcept {
  if (!connection_) return;
  std::unique_ptr<detail::ClientConnection> connection = std::move(connection_);
  // Why a reference is enough: give_back reads the key before it may destroy
  // the connection that owns it (and it is taken before the argument moves).
  const std::string& origin = connection->origin_key();
  pools_->give_back(origin, std::move(connection), reusable);
}

Task<ClientBodyChunk> ClientExchange::read() {
  if (finished_) co_return ClientBodyChunk{ClientBodyChunk::Status::end, {}};
  if (failed_ || !connection_) co_return ClientBodyChunk{ClientBodyChunk::Status::error, {}};
  const detail::ResponseStep step = co_await detail::next_response_event(*connection_);
  if (step.timed_out == ClientStage::none && step.read_error == 0) {
    if (step.result.event == http::ResponseParser::Event::body) {
      co_return ClientBodyChunk{ClientBodyChunk::Status::data, step.result.body};
    }
    if (step.result.event == http::ResponseParser::Event::complete) {
      finished_ = true;
      trailers_ = connection_->parser().trailers();
      release(connection_->parser().keep_alive());
      co_return ClientBodyChunk{ClientBodyChunk::Status::end, {}};
    }
  }
  failed_ = true;
  error_ = detail::response_error(step, connection_->parser(), what_, *connection_);
  release(false);
  co_return ClientBodyChunk{ClientBodyChunk::Status::error, {}};
}

}  // namespace tiffany

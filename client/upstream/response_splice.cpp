// ResponseSplice: fill the pipe from the upstream, empty it into the client, until the sized body is through.
#include "client/upstream/response_splice.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/reactor/splice.hpp>

#include "client/internal/client_connection.hpp"
#include "client/internal/response_error.hpp"
#include "client/internal/stage_deadline.hpp"

namespace tiffany::upstream {
namespace {

int make_nonblocking(int fd) noexcept {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0) return errno;
  if ((flags & O_NONBLOCK) != 0) return 0;
  return ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 ? 0 : errno;
}

}  // namespace

bool ResponseSplice::possible(const ClientExchange& exchange) noexcept {
  const detail::ClientConnection* connection = exchange.connection_.get();
  if (connection == nullptr || exchange.finished_ || exchange.failed_) return false;
  return connection->plain_socket() >= 0 && connection->parser().sized_body_left() > 0;
}

std::size_t ResponseSplice::buffered(const ClientExchange& exchange) noexcept {
  const detail::ClientConnection* connection = exchange.connection_.get();
  return connection == nullptr ? 0 : connection->pending().size();
}

Task<SpliceOutcome> ResponseSplice::splice_rest(ClientExchange& exchange, int client, PipeLease& pipe,
                                                std::chrono::milliseconds write_timeout, std::uint64_t& spliced) {
  detail::ClientConnection& connection = *exchange.connection_;
  http::ResponseParser& parser = connection.parser();
  const int upstream = connection.plain_socket();
  SpliceOutcome outcome;
  detail::ResponseStep failure;  // what went wrong upstream, for the exchange's error
  bool upstream_failed = false;
  if (const int error = make_nonblocking(upstream); error != 0) {
    failure.read_error = error;
    upstream_failed = true;
  } else if (make_nonblocking(client) != 0) {
    outcome.end = SpliceOutcome::End::client_failed;
  }
  std::uint64_t left = parser.sized_body_left();
  while (left > 0 && !upstream_failed && outcome.end == SpliceOutcome::End::done) {
    // Fill: as much as the upstream has, up to a pipe's worth (never more than the body).
    const detail::StageEnd end = detail::stage_end(ClientStage::read, connection.read_timeout, connection.total_end);
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(left, pipe.capacity()));
    Timed<IoResult> filled = Timed<IoResult>::timed_out_now();
    {
      // Why its own scope: the read's deadline must be gone before the
      // drain, or a slow client would be taken for a stalled upstream.
      Deadline read_deadline = Deadline::unarmed();
      if (end.when) read_deadline.rearm(*end.when);
      filled = co_await read_deadline.guard(
          splice_when_ready(upstream, pipe.write_end(), want, upstream, Splice::Waits::readable));
    }
    if (filled.timed_out()) {
      failure.timed_out = end.stage;
      upstream_failed = true;
      break;
    }
    if (!filled->ok()) {
      failure.read_error = filled->error();
      upstream_failed = true;
      break;
    }
    if (filled->bytes() == 0) {  // the upstream closed inside the body
      failure.result = parser.finish();
      upstream_failed = true;
      break;
    }
    pipe.held += filled->bytes();
    left -= filled->bytes();
    connection.response_bytes += filled->bytes();
    // Why told now: the parser's count is the body's, and it ends the
    // message (keep-alive) when the last byte is taken.
    const http::ResponseParser::Result taken = parser.skip_sized_body(filled->bytes());
    if (left == 0 && taken.event != http::ResponseParser::Event::complete) {
      failure.result = taken;
      upstream_failed = true;
    }
    // Drain: the pipe's bytes into the client, as fast as it takes them.
    while (pipe.held > 0) {
      Deadline write_deadline = Deadline::after(write_timeout);
      const Timed<IoResult> drained = co_await write_deadline.guard(
          splice_when_ready(pipe.read_end(), client, pipe.held, client, Splice::Waits::writable));
      if (drained.timed_out()) {
        outcome.end = SpliceOutcome::End::client_timeout;
        break;
      }
      if (!drained->ok() || drained->bytes() == 0) {
        outcome.end = SpliceOutcome::End::client_failed;
        break;
      }
      pipe.held -= drained->bytes();
      outcome.bytes += drained->bytes();
      spliced += drained->bytes();
    }
  }
  if (upstream_failed) {
    outcome.end = SpliceOutcome::End::upstream_failed;
    exchange.failed_ = true;
    exchange.error_ = detail::response_error(failure, parser, exchange.what_, connection);
    exchange.release(false);
    co_return outcome;
  }
  if (outcome.end != SpliceOutcome::End::done) {
    // Why closed: the client left mid-body, so the rest was never read; the
    // connection cannot carry another request.
    exchange.failed_ = true;
    exchange.error_ = ClientError{ClientErrorKind::io, exchange.what_ + ": the client left during the body",
                                  ClientStage::none};
    exchange.release(false);
    co_return outcome;
  }
  exchange.finished_ = true;
  exchange.trailers_ = parser.trailers();
  exchange.release(parser.keep_alive());
  co_return outcome;
}

}  // namespace tiffany::upstream

// Exchange as the response's sink: the head, the content coding and the body's pieces, through the wire.
#include <tiffany/http/http_status.hpp>

#include "server/http/exchange.hpp"

namespace tiffany::http {

Task<std::optional<Delivery>> ResponseWire::send_file_range(int, std::uint64_t, std::uint64_t) {
  co_return std::nullopt;  // the wire cannot: Exchange::send_file writes pieces
}

Task<Delivery> Exchange::write_body(Response& response, std::string_view piece) {
  if (wire_.write_closed()) co_return Delivery::closed;
  const bool bodyless = head_request_ || status_forbids_body(response.status);
  if (!response.streaming()) {
    response.mark_head_sent();
    const bool encoded = compression_.start_stream(response, bodyless);
    // An encoded body's length is not the declared one: unknown instead.
    const std::optional<std::uint64_t> length = encoded ? std::nullopt : response.content_length();
    const ResponseWire::Head head = co_await wire_.send_head(response, length, bodyless, encoded);
    if (head == ResponseWire::Head::refused) co_return Delivery::closed;
  }
  std::string_view bytes;
  if (!bodyless && !piece.empty()) {
    identity_bytes_ += piece.size();
    // Why coded piece by piece: what the handler sent so far must reach the
    // peer now, decodable, as it would without compression.
    bytes = compression_.streaming() ? compression_.encode_piece(piece) : piece;
  }
  co_return co_await wire_.write_piece(bytes);
}

Task<Delivery> Exchange::send_file(Response& response, int fd, std::uint64_t offset, std::uint64_t length) {
  const Delivery head = co_await write_body(response, {});  // the head (and on HTTP/1.1 the answers before it)
  if (head == Delivery::closed) co_return Delivery::closed;
  if (head_request_ || status_forbids_body(response.status) || length == 0) co_return Delivery::sent;
  if (!compression_.streaming()) {
    const std::optional<Delivery> direct = co_await wire_.send_file_range(fd, offset, length);
    if (direct) {
      if (*direct == Delivery::sent) identity_bytes_ += length;
      co_return *direct;
    }
  }
  co_return co_await BodySink::send_file(response, fd, offset, length);  // each piece coded, or a chunk
}

Task<SpliceTarget> Exchange::begin_splice(Response& response) {
  const Delivery head = co_await write_body(response, {});  // the head, and every answer queued before it
  if (head == Delivery::closed) co_return SpliceTarget{-1, true};
  // Why each condition: the bytes go on the wire exactly as the upstream
  // sent them, so nothing may encode them, their length must be the declared
  // one, and a bodiless answer sends none; the wire adds its own (no TLS, no
  // chunks: only HTTP/1.1 on a plain socket).
  const bool raw = !compression_.streaming() && !head_request_ && !status_forbids_body(response.status) &&
                   response.content_length().has_value();
  co_return SpliceTarget{raw ? wire_.splice_socket() : -1, false};
}

void Exchange::spliced(std::uint64_t bytes) noexcept {
  identity_bytes_ += bytes;
  wire_.spliced(bytes);
}

}  // namespace tiffany::http

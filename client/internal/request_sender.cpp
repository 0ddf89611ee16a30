// send_request: request head + body out, gathered where the stream allows, with back-pressure on a body source.
#include "client/internal/request_sender.hpp"

#include <sys/uio.h>

#include <array>
#include <span>
#include <string_view>

#include <tiffany/coro/deadline.hpp>

#include "client/internal/stage_deadline.hpp"
#include "http/engine/request_writer.hpp"

namespace tiffany::detail {
namespace {

iovec piece(std::string_view bytes) noexcept { return iovec{const_cast<char*>(bytes.data()), bytes.size()}; }

// Why join for a stream that does not gather: TLS would make each piece its
// own record (and write), so one copy into scratch costs less.
Task<IoResult> write_pieces(ByteStream& stream, std::span<iovec> pieces, std::string& scratch) {
  if (stream.gathers_writes() || pieces.size() == 1) {
    if (pieces.size() == 1) return stream.write(static_cast<const char*>(pieces[0].iov_base), pieces[0].iov_len);
    return stream.write_gather(pieces);
  }
  scratch.clear();
  for (const iovec& one : pieces) scratch.append(static_cast<const char*>(one.iov_base), one.iov_len);
  return stream.write(scratch.data(), scratch.size());
}

bool wants_length_when_empty(std::string_view method) noexcept {
  return method == "POST" || method == "PUT" || method == "PATCH";
}

}  // namespace

std::optional<RequestHead> build_request_head(const ClientRequest& request, const OriginUrl& origin,
                                              std::string_view target, std::string& error) {
  RequestHead out;
  if (request.body_source != nullptr) {
    out.framing = request.body_length ? http::RequestFraming::content_length : http::RequestFraming::chunked;
    out.content_length = request.body_length.value_or(0);
  } else if (!request.body.empty() || wants_length_when_empty(request.method)) {
    out.framing = http::RequestFraming::content_length;
    out.content_length = request.body.size();
  }
  http::OutboundRequest head;
  head.method = request.method;
  head.target = target;
  head.host = request.host.empty() ? std::string_view(origin.host_header) : std::string_view(request.host);
  head.headers = &request.headers;
  head.framing = out.framing;
  head.content_length = out.content_length;
  if (!write_request_head(head, out.bytes, error)) return std::nullopt;
  return out;
}

Task<SendResult> send_request(ClientConnection& connection, const ClientRequest& request, const RequestHead& head,
                              const ClientTimeouts& timeouts, const std::string& what) {
  SendResult result;
  http::RequestFraming framing = head.framing;
  http::ChunkHead chunk_line;  // the current chunk's size line, alive in this frame until written
  std::string scratch;
  std::array<iovec, 3> pieces{};
  std::size_t count = 0;
  pieces[count++] = piece(head.bytes);
  if (request.body_source == nullptr && !request.body.empty()) pieces[count++] = piece(request.body);
  std::uint64_t streamed = 0;
  for (;;) {
    const StageEnd end = stage_end(ClientStage::write, timeouts.write, connection.total_end);
    Deadline deadline = Deadline::unarmed();
    if (end.when) deadline.rearm(*end.when);
    Timed<IoResult> wrote =
        co_await deadline.guard(write_pieces(connection.stream(), std::span<iovec>(pieces.data(), count), scratch));
    if (wrote.timed_out()) {
      result.error = ClientError{
          ClientErrorKind::timeout,
          what + ": the request was not written within the " + std::string(to_string(end.stage)) + " timeout",
          end.stage};
      co_return result;
    }
    if (!wrote->ok()) {
      result.connection_lost = true;
      result.error =
          ClientError{ClientErrorKind::io, what + ": writing the request: " + wrote->message(), ClientStage::none};
      co_return result;
    }
    count = 0;
    if (request.body_source == nullptr || framing == http::RequestFraming::none) break;

    // The next piece of a streamed body, read only now: back-pressure.
    result.source_touched = true;
    const http::BodyChunk chunk = co_await request.body_source->read_body();
    if (chunk.failed()) {
      result.error = ClientError{ClientErrorKind::io, what + ": the request body source failed", ClientStage::none};
      co_return result;
    }
    if (framing == http::RequestFraming::content_length) {
      if (!chunk) {
        if (streamed == head.content_length) break;
        result.error = ClientError{ClientErrorKind::bad_request,
                                   what + ": the body source ended after " + std::to_string(streamed) +
                                       " of body_length " + std::to_string(head.content_length) + " bytes",
                                   ClientStage::none};
        co_return result;
      }
      streamed += chunk.bytes.size();
      if (streamed > head.content_length) {
        result.error = ClientError{
            ClientErrorKind::bad_request,
            what + ": the body source gave more than body_length " + std::to_string(head.content_length) + " bytes",
            ClientStage::none};
        co_return result;
      }
      pieces[count++] = piece(chunk.bytes);
      continue;
    }
    if (!chunk) {
      pieces[count++] = piece(http::kLastChunk);
      framing = http::RequestFraming::none;  // written after this round: done
      continue;
    }
    chunk_line = http::chunk_head(chunk.bytes.size());
    pieces[count++] = piece(chunk_line.view());
    pieces[count++] = piece(chunk.bytes);
    pieces[count++] = piece(http::kChunkTail);
  }
  co_return result;
}

}  // namespace tiffany::detail

// ResponseWire: the narrow writer each HTTP protocol implements under the Exchange.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <tiffany/coro/task.hpp>
#include <tiffany/http/delivery.hpp>
#include <tiffany/http/response.hpp>

#include "http/engine/websocket/connection_upgrade.hpp"

namespace tiffany::http {

/// What a protocol does to put a response on the wire; HttpConnection
/// (HTTP/1.1) and Http2Stream implement it. The Exchange is the response's
/// sink (what handlers, accept_websocket and the proxy reach through
/// Response::sink()) and decides what every protocol decides alike: whether
/// a body is sent, its content coding and so its length, the handler's bytes
/// before coding; the wire frames and writes (a head, chunks or DATA
/// frames, a file from the page cache) and upgrades to a WebSocket.
class ResponseWire : public websocket::ConnectionUpgrade {
 public:
  /// How a streamed response's head was taken.
  enum class Head : std::uint8_t {
    sent,
    /// A field the handler set is not valid HTTP: a 500 went in its place,
    /// and nothing more of this response goes.
    refused,
  };
  /// Sends the head of a streamed response (its status and fields). Its body
  /// is `length` bytes when that is known, else of unknown length; none is
  /// sent when `bodyless` (HEAD, 1xx, 204, 304); `encoded`: a content coding
  /// replaced the handler's body (and its declared length).
  virtual Task<Head> send_head(const Response& response, std::optional<std::uint64_t> length, bool bodyless,
                               bool encoded) = 0;
  /// Writes body bytes as they go on the wire (coded already), and waits
  /// while too much of the response is unwritten; empty: sends what waits
  /// (the head, and on HTTP/1.1 the pipelined answers before it).
  virtual Task<Delivery> write_piece(std::string_view bytes) = 0;
  /// True once nothing more can go: a write failed, the stream was reset, or
  /// a head was refused.
  virtual bool write_closed() const noexcept = 0;
  /// Sends `length` bytes of the open file `fd` from `offset` straight from
  /// the page cache, where the wire can (a plain socket, the body framed by
  /// its length); nullopt when it cannot, with nothing sent.
  virtual Task<std::optional<Delivery>> send_file_range(int fd, std::uint64_t offset, std::uint64_t length);
  /// After the head went: the socket another socket may splice the body into
  /// byte for byte (see SpliceSink::begin_splice), or -1 (TLS, HTTP/2, chunks).
  virtual int splice_socket() const noexcept { return -1; }
  /// Counts `bytes` of the body spliced into splice_socket().
  virtual void spliced(std::uint64_t) noexcept {}
  /// A splice into splice_socket() failed (`timed_out`: the client took nothing in time).
  virtual void splice_failed(bool) noexcept {}

 protected:
  ~ResponseWire() = default;
};

}  // namespace tiffany::http

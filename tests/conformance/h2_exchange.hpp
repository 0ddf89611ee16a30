// H2Connection: the conformance suite's HTTP/2 client. Frames and HPACK
// literals are written by hand (so malformed requests can be sent as they
// are); the server's header blocks are decoded with nghttp2's HPACK inflater.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conformance.hpp"
#include "wire.hpp"

struct nghttp2_hd_inflater;

namespace tiffany::testing {

using H2Fields = std::vector<std::pair<std::string, std::string>>;

/// One request stream, sent exactly as given.
struct H2Request {
  H2Fields headers;               ///< in order, pseudo-fields included, each an HPACK literal without indexing
  std::vector<std::string> data;  ///< DATA frames after the HEADERS
  bool end_stream = true;         ///< END_STREAM on the last frame sent (else the stream stays open)
  std::string after_continue;     ///< sent as one DATA frame ending the stream once a 100 arrives
  std::optional<H2Fields> trailers;  ///< a HEADERS frame after the DATA (ending the stream if `end_stream`)
};

/// What the server did with a stream.
struct H2Outcome {
  std::optional<Reply> reply;          ///< the final response (version "HTTP/2"), its 1xx in `interim`
  std::optional<std::uint32_t> reset;  ///< the RST_STREAM code, if the server reset the stream
  std::string error;                   ///< why the exchange ended without either (timeout, GOAWAY, close)
};

/// The RFC 9113 §7 name of an error code ("PROTOCOL_ERROR").
std::string h2_error_name(std::uint32_t code);

/// One HTTP/2 connection over `wire`: the preface and SETTINGS (push off) go
/// out with the first request; SETTINGS and PING are acknowledged and received
/// DATA is credited back as frames arrive.
class H2Connection {
 public:
  explicit H2Connection(Wire& wire);
  H2Connection(const H2Connection&) = delete;
  H2Connection& operator=(const H2Connection&) = delete;
  ~H2Connection();

  /// Sends `request` on the next stream and reads until the server ends or
  /// resets it, sends GOAWAY, closes, or `patience` passes.
  H2Outcome exchange(const H2Request& request, std::chrono::milliseconds patience);
  /// The GOAWAY the server sent, if any: its error code.
  std::optional<std::uint32_t> goaway() const { return goaway_; }
  /// Set when the server broke the protocol (a frame this client cannot read).
  const std::string& broken() const { return broken_; }

 private:
  struct Stream {
    std::optional<Reply> reply;
    std::vector<int> interim;
    std::string block;  // header block fragments until END_HEADERS
    bool block_ends_stream = false;
    bool ended = false;
    std::optional<std::uint32_t> reset;
    std::string after_continue;
  };

  bool read_frames(std::chrono::steady_clock::time_point deadline);
  void handle(std::uint8_t type, std::uint8_t flags, std::uint32_t id, std::string_view payload);
  void header_block_done(std::uint32_t id, Stream& stream);
  /// Queues a frame; flush() writes what is queued.
  void send_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t id, std::string_view payload);
  void flush();
  /// Queues a header block: HEADERS, then CONTINUATION frames past the frame size.
  void send_headers(std::uint32_t id, const H2Fields& fields, bool end_stream);

  Wire& wire_;
  nghttp2_hd_inflater* inflater_ = nullptr;
  std::string buffer_;
  std::string outbox_;
  std::map<std::uint32_t, Stream> streams_;
  std::uint32_t next_id_ = 1;
  std::uint32_t continuing_ = 0;  // the stream whose header block awaits CONTINUATION
  std::optional<std::uint32_t> goaway_;
  std::uint32_t goaway_last_ = 0;
  std::string broken_;
};

/// The HTTP/2 form of one raw HTTP/1.1 request (RFC 9113 §8.3.1): the request
/// line becomes :method/:path, Host :authority, field names lower case, the
/// body DATA. Nullopt (with `why`) when it has no HTTP/2 form: several requests,
/// no Host, a connection-specific field, a body framed other than by Content-Length.
std::optional<H2Request> from_http1(std::string_view raw, std::string_view scheme, std::string& why);

}  // namespace tiffany::testing

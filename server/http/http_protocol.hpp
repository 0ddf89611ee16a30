// The HTTP/1.1 protocol of one listener: its site (routes, limits).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "server/http/http_connection.hpp"
#include "server/http/http_site.hpp"
#include "server/http2/stream_pool.hpp"
#include "server/transport/stream_protocol.hpp"

namespace tiffany {

/// Serves each burst with an HttpConnection state, reused from burst to
/// burst and connection to connection: idle connections hold none, busy ones
/// keep the buffers they grew. With `http2` on, a connection that agreed on
/// "h2" by ALPN, or opens with the HTTP/2 preface in cleartext, is served by
/// an Http2Connection for the rest of its life (it keeps its task meanwhile);
/// its finished streams go to a pool (StreamPool) that the next ones reuse.
class HttpProtocol final : public StreamProtocol {
 public:
  /// Spare states kept for reuse; more are freed.
  static constexpr std::size_t kMaxSpareStates = 256;

  explicit HttpProtocol(http::HttpSite site) : site_(std::move(site)) {}
  Task<AfterBurst> serve(ByteStream& stream, ConnectionContext& context, ReadLease first) override;
  std::chrono::milliseconds idle_timeout() const noexcept override { return site_.timeouts.keepalive; }
  const char* name() const noexcept override { return "http"; }
  /// The site it serves: its own copy, made at construction.
  const http::HttpSite& site() const noexcept { return site_; }

 private:
  /// The rest of the connection in HTTP/2 (ALPN "h2", or the preface opens `first`).
  Task<AfterBurst> serve_http2(ByteStream& stream, ConnectionContext& context, ReadLease first);
  /// What reading on into a partial preface came to.
  enum class PrefaceRead : std::uint8_t {
    told,  ///< the bytes are the whole preface, or not one
    lost,  ///< the peer left, failed or timed out first: close
  };
  /// `first` is a proper prefix of the preface: reads on into it until it is
  /// the whole preface or not one.
  Task<PrefaceRead> read_until_preface_told(ByteStream& stream, ConnectionContext& context, ReadLease& first);

  http::HttpSite site_;
  std::vector<std::unique_ptr<http::HttpConnection>> spare_states_;
  http2::StreamPool http2_streams_{site_};  // after site_, which it serves
};

}  // namespace tiffany

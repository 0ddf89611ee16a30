// Metrics::render_http2: the HTTP/2 counters, summed over workers per listener, as Prometheus text.
#include "handlers/engine/http2_metrics.hpp"

#include <array>
#include <cstdio>
#include <utility>
#include <vector>

#include "handlers/engine/metrics.hpp"
#include "handlers/internal/prometheus_text.hpp"

namespace tiffany {
namespace {

struct Sum {
  std::uint64_t connections = 0, streams = 0, resets_received = 0, resets_sent = 0, stalls = 0;
  std::array<std::uint64_t, 3> goaways{};  // no_error, enhance_your_calm, other
};

}  // namespace

Http2Metrics& Metrics::add_http2(std::string listener) {
  std::lock_guard lock(mutex_);
  return http2_.emplace_back(std::move(listener));
}

void Metrics::render_http2(std::string& out) const {
  if (http2_.empty()) return;
  const auto sums = prometheus::sums_by_labels<Sum>(
      http2_, [](const Http2Metrics& m) { return "listener=\"" + prometheus_label(m.listener) + "\""; },
      [](Sum& sum, const Http2Metrics& m) {
        sum.connections += prometheus::read(m.connections);
        sum.streams += prometheus::read(m.streams);
        sum.resets_received += prometheus::read(m.resets_received);
        sum.resets_sent += prometheus::read(m.resets_sent);
        sum.stalls += prometheus::read(m.stalls);
        sum.goaways[0] += prometheus::read(m.goaways_no_error);
        sum.goaways[1] += prometheus::read(m.goaways_calm);
        sum.goaways[2] += prometheus::read(m.goaways_other);
      });
  prometheus::family(out, "tiffany_http2_connections_total", "counter", "Connections that spoke HTTP/2.");
  for (const auto& [labels, sum] : sums) prometheus::sample(out, "tiffany_http2_connections_total{" + labels + "}", sum.connections);
  prometheus::family(out, "tiffany_http2_streams_total", "counter", "Streams HTTP/2 clients opened.");
  for (const auto& [labels, sum] : sums) prometheus::sample(out, "tiffany_http2_streams_total{" + labels + "}", sum.streams);
  prometheus::family(out, "tiffany_http2_resets_total", "counter", "RST_STREAM frames, received from clients and sent to them.");
  for (const auto& [labels, sum] : sums) {
    prometheus::sample(out, "tiffany_http2_resets_total{" + labels + ",direction=\"received\"}", sum.resets_received);
    prometheus::sample(out, "tiffany_http2_resets_total{" + labels + ",direction=\"sent\"}", sum.resets_sent);
  }
  prometheus::family(out, "tiffany_http2_goaways_sent_total", "counter", "GOAWAY frames sent, by error code.");
  static constexpr const char* kCodes[] = {"NO_ERROR", "ENHANCE_YOUR_CALM", "other"};
  for (const auto& [labels, sum] : sums) {
    for (std::size_t i = 0; i < sum.goaways.size(); ++i) {
      prometheus::sample(out, "tiffany_http2_goaways_sent_total{" + labels + ",code=\"" + kCodes[i] + "\"}", sum.goaways[i]);
    }
  }
  prometheus::family(out, "tiffany_http2_flow_control_stalls_total", "counter", "Responses that waited on a client's shut flow-control window.");
  for (const auto& [labels, sum] : sums) prometheus::sample(out, "tiffany_http2_flow_control_stalls_total{" + labels + "}", sum.stalls);
}

}  // namespace tiffany

// Metrics::render_http2: the HTTP/2 counters, summed over workers per listener, as Prometheus text.
#include "handlers/internal/http2_metrics.hpp"

#include <array>
#include <cstdio>
#include <utility>
#include <vector>

#include "handlers/internal/metrics.hpp"

namespace tiffany {
namespace {

struct Sum {
  std::uint64_t connections = 0, streams = 0, resets_received = 0, resets_sent = 0, stalls = 0;
  std::array<std::uint64_t, 3> goaways{};  // no_error, enhance_your_calm, other
};

std::uint64_t get(const std::atomic<std::uint64_t>& counter) { return counter.load(std::memory_order_relaxed); }

void line(std::string& out, const std::string& name_and_labels, std::uint64_t value) {
  out += name_and_labels + " " + std::to_string(value) + "\n";
}

void head(std::string& out, const char* name, const char* help) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " counter\n";
}

}  // namespace

Http2Metrics& Metrics::add_http2(std::string listener) {
  std::lock_guard lock(mutex_);
  return http2_.emplace_back(std::move(listener));
}

void Metrics::render_http2(std::string& out) const {
  if (http2_.empty()) return;
  std::vector<std::pair<std::string, Sum>> sums;  // listener label -> sum, in the order listeners were added
  for (const Http2Metrics& m : http2_) {
    const std::string labels = "listener=\"" + prometheus_label(m.listener) + "\"";
    auto it = sums.begin();
    while (it != sums.end() && it->first != labels) ++it;
    if (it == sums.end()) it = sums.insert(sums.end(), {labels, Sum{}});
    Sum& sum = it->second;
    sum.connections += get(m.connections);
    sum.streams += get(m.streams);
    sum.resets_received += get(m.resets_received);
    sum.resets_sent += get(m.resets_sent);
    sum.stalls += get(m.stalls);
    sum.goaways[0] += get(m.goaways_no_error);
    sum.goaways[1] += get(m.goaways_calm);
    sum.goaways[2] += get(m.goaways_other);
  }
  head(out, "tiffany_http2_connections_total", "Connections that spoke HTTP/2.");
  for (const auto& [labels, sum] : sums) line(out, "tiffany_http2_connections_total{" + labels + "}", sum.connections);
  head(out, "tiffany_http2_streams_total", "Streams HTTP/2 clients opened.");
  for (const auto& [labels, sum] : sums) line(out, "tiffany_http2_streams_total{" + labels + "}", sum.streams);
  head(out, "tiffany_http2_resets_total", "RST_STREAM frames, received from clients and sent to them.");
  for (const auto& [labels, sum] : sums) {
    line(out, "tiffany_http2_resets_total{" + labels + ",direction=\"received\"}", sum.resets_received);
    line(out, "tiffany_http2_resets_total{" + labels + ",direction=\"sent\"}", sum.resets_sent);
  }
  head(out, "tiffany_http2_goaways_sent_total", "GOAWAY frames sent, by error code.");
  static constexpr const char* kCodes[] = {"NO_ERROR", "ENHANCE_YOUR_CALM", "other"};
  for (const auto& [labels, sum] : sums) {
    for (std::size_t i = 0; i < sum.goaways.size(); ++i) {
      line(out, "tiffany_http2_goaways_sent_total{" + labels + ",code=\"" + kCodes[i] + "\"}", sum.goaways[i]);
    }
  }
  head(out, "tiffany_http2_flow_control_stalls_total", "Responses that waited on a client's shut flow-control window.");
  for (const auto& [labels, sum] : sums) line(out, "tiffany_http2_flow_control_stalls_total{" + labels + "}", sum.stalls);
}

}  // namespace tiffany

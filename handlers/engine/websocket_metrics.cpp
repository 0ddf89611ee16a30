// Metrics::render_websocket: the WebSocket counters, summed over workers per listener, as Prometheus text.
#include "handlers/engine/websocket_metrics.hpp"

#include <array>
#include <utility>
#include <vector>

#include "handlers/engine/metrics.hpp"
#include "handlers/internal/prometheus_text.hpp"

namespace tiffany {
namespace {

struct Sum {
  std::uint64_t connections = 0, ended = 0, freed = 0, received = 0, sent = 0;
  std::array<std::uint64_t, 6> closes{};  // in kCloses order
};

constexpr std::array<const char*, 6> kCloses{"normal", "going_away", "protocol_error", "policy", "abnormal", "other"};

}  // namespace

WebSocketMetrics& Metrics::add_websocket(std::string listener) {
  std::lock_guard lock(mutex_);
  return websocket_.emplace_back(std::move(listener));
}

Metrics::WebSocketTotals Metrics::websocket_totals(const std::string& listener) const {
  std::lock_guard lock(mutex_);
  WebSocketTotals totals;
  for (const WebSocketMetrics& row : websocket_) {
    if (row.listener != listener) continue;
    totals.connections += prometheus::read(row.connections);
    totals.ended += prometheus::read(row.ended);
    totals.freed += prometheus::read(row.freed);
  }
  return totals;
}

void Metrics::render_websocket(std::string& out) const {
  auto sums = prometheus::sums_by_labels<Sum>(
      websocket_, [](const WebSocketMetrics& m) { return "listener=\"" + prometheus_label(m.listener) + "\""; },
      [](Sum& sum, const WebSocketMetrics& m) {
        sum.connections += prometheus::read(m.connections);
        sum.ended += prometheus::read(m.ended);
        sum.freed += prometheus::read(m.freed);
        sum.received += prometheus::read(m.messages_received);
        sum.sent += prometheus::read(m.messages_sent);
        const std::array<const std::atomic<std::uint64_t>*, 6> closes{&m.closes_normal, &m.closes_going_away,
                                                                       &m.closes_protocol, &m.closes_policy,
                                                                       &m.closes_abnormal, &m.closes_other};
        for (std::size_t i = 0; i < closes.size(); ++i) sum.closes[i] += prometheus::read(*closes[i]);
      });
  // Why only listeners that saw one: an HTTP listener without WebSocket routes adds no rows.
  std::erase_if(sums, [](const auto& entry) { return entry.second.connections == 0; });
  if (sums.empty()) return;
  prometheus::family(out, "tiffany_websocket_connections_total", "counter", "WebSocket upgrades accepted.");
  for (const auto& [labels, sum] : sums) prometheus::sample(out, "tiffany_websocket_connections_total{" + labels + "}", sum.connections);
  prometheus::family(out, "tiffany_websocket_open", "gauge", "WebSocket connections open now.");
  for (const auto& [labels, sum] : sums) prometheus::sample(out, "tiffany_websocket_open{" + labels + "}", sum.connections - sum.ended);
  prometheus::family(out, "tiffany_websocket_sessions_in_memory", "gauge",
       "WebSocket sessions not yet freed: the open ones and those finishing their close.");
  for (const auto& [labels, sum] : sums) {
    prometheus::sample(out, "tiffany_websocket_sessions_in_memory{" + labels + "}", sum.connections - sum.freed);
  }
  prometheus::family(out, "tiffany_websocket_messages_total", "counter", "Whole WebSocket messages, received and sent.");
  for (const auto& [labels, sum] : sums) {
    prometheus::sample(out, "tiffany_websocket_messages_total{" + labels + ",direction=\"received\"}", sum.received);
    prometheus::sample(out, "tiffany_websocket_messages_total{" + labels + ",direction=\"sent\"}", sum.sent);
  }
  prometheus::family(out, "tiffany_websocket_closes_total", "counter",
       "WebSocket connections ended, by close code: normal 1000, going_away 1001, protocol_error 1002/1007/1009, "
       "policy 1008, abnormal 1006 (no close handshake), other.");
  for (const auto& [labels, sum] : sums) {
    for (std::size_t i = 0; i < kCloses.size(); ++i) {
      prometheus::sample(out, "tiffany_websocket_closes_total{" + labels + ",reason=\"" + kCloses[i] + "\"}", sum.closes[i]);
    }
  }
}

}  // namespace tiffany

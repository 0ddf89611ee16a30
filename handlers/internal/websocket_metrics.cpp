// Metrics::render_websocket: the WebSocket counters, summed over workers per listener, as Prometheus text.
#include "handlers/internal/websocket_metrics.hpp"

#include <array>
#include <utility>
#include <vector>

#include "handlers/internal/metrics.hpp"

namespace tiffany {
namespace {

struct Sum {
  std::uint64_t connections = 0, ended = 0, received = 0, sent = 0;
  std::array<std::uint64_t, 6> closes{};  // in kCloses order
};

constexpr std::array<const char*, 6> kCloses{"normal", "going_away", "protocol_error", "policy", "abnormal", "other"};

std::uint64_t get(const std::atomic<std::uint64_t>& counter) { return counter.load(std::memory_order_relaxed); }

void line(std::string& out, const std::string& name_and_labels, std::uint64_t value) {
  out += name_and_labels + " " + std::to_string(value) + "\n";
}

void head(std::string& out, const char* name, const char* type, const char* help) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

WebSocketMetrics& Metrics::add_websocket(std::string listener) {
  std::lock_guard lock(mutex_);
  return websocket_.emplace_back(std::move(listener));
}

void Metrics::render_websocket(std::string& out) const {
  std::vector<std::pair<std::string, Sum>> sums;  // listener label -> sum, in the order listeners were added
  for (const WebSocketMetrics& m : websocket_) {
    const std::string labels = "listener=\"" + prometheus_label(m.listener) + "\"";
    auto it = sums.begin();
    while (it != sums.end() && it->first != labels) ++it;
    if (it == sums.end()) it = sums.insert(sums.end(), {labels, Sum{}});
    Sum& sum = it->second;
    sum.connections += get(m.connections);
    sum.ended += get(m.ended);
    sum.received += get(m.messages_received);
    sum.sent += get(m.messages_sent);
    const std::array<const std::atomic<std::uint64_t>*, 6> closes{&m.closes_normal, &m.closes_going_away,
                                                                   &m.closes_protocol, &m.closes_policy,
                                                                   &m.closes_abnormal, &m.closes_other};
    for (std::size_t i = 0; i < closes.size(); ++i) sum.closes[i] += get(*closes[i]);
  }
  // Why only listeners that saw one: an HTTP listener without WebSocket routes adds no rows.
  std::erase_if(sums, [](const auto& entry) { return entry.second.connections == 0; });
  if (sums.empty()) return;
  head(out, "tiffany_websocket_connections_total", "counter", "WebSocket upgrades accepted.");
  for (const auto& [labels, sum] : sums) line(out, "tiffany_websocket_connections_total{" + labels + "}", sum.connections);
  head(out, "tiffany_websocket_open", "gauge", "WebSocket connections open now.");
  for (const auto& [labels, sum] : sums) line(out, "tiffany_websocket_open{" + labels + "}", sum.connections - sum.ended);
  head(out, "tiffany_websocket_messages_total", "counter", "Whole WebSocket messages, received and sent.");
  for (const auto& [labels, sum] : sums) {
    line(out, "tiffany_websocket_messages_total{" + labels + ",direction=\"received\"}", sum.received);
    line(out, "tiffany_websocket_messages_total{" + labels + ",direction=\"sent\"}", sum.sent);
  }
  head(out, "tiffany_websocket_closes_total", "counter",
       "WebSocket connections ended, by close code: normal 1000, going_away 1001, protocol_error 1002/1007/1009, "
       "policy 1008, abnormal 1006 (no close handshake), other.");
  for (const auto& [labels, sum] : sums) {
    for (std::size_t i = 0; i < kCloses.size(); ++i) {
      line(out, "tiffany_websocket_closes_total{" + labels + ",reason=\"" + kCloses[i] + "\"}", sum.closes[i]);
    }
  }
}

}  // namespace tiffany

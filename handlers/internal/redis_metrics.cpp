// Metrics::render_redis: pub/sub's Redis link counters, summed over workers per Redis address, as Prometheus text.
#include "handlers/internal/redis_metrics.hpp"

#include <utility>
#include <vector>

#include "handlers/engine/metrics.hpp"
#include "handlers/internal/prometheus_text.hpp"

namespace tiffany {
namespace {

struct Sum {
  std::int64_t connected = 0, queued = 0, peak = 0;
  std::uint64_t connects = 0, failures = 0, refused = 0;
  std::array<std::uint64_t, RedisMetrics::kLossNames.size()> losses{};
};

}  // namespace

RedisMetrics& Metrics::add_redis(std::string redis) {
  std::lock_guard lock(mutex_);
  return redis_.emplace_back(std::move(redis));
}

void Metrics::render_redis(std::string& out) const {
  const auto sums = prometheus::sums_by_labels<Sum>(
      redis_, [](const RedisMetrics& m) { return "redis=\"" + prometheus_label(m.redis) + "\""; },
      [](Sum& sum, const RedisMetrics& m) {
        sum.connected += m.connected.load(std::memory_order_relaxed);
        sum.queued += m.queued_bytes.load(std::memory_order_relaxed);
        sum.peak = std::max(sum.peak, m.queued_bytes_peak.load(std::memory_order_relaxed));
        sum.connects += prometheus::read(m.connects);
        sum.failures += prometheus::read(m.connect_failures);
        sum.refused += prometheus::read(m.publishes_refused);
        for (std::size_t i = 0; i < sum.losses.size(); ++i) sum.losses[i] += prometheus::read(m.losses[i]);
      });
  if (sums.empty()) return;  // no pub/sub bus on Redis
  const auto gauge = [&](const char* name, const char* help, std::int64_t Sum::*field) {
    prometheus::family(out, name, "gauge", help);
    for (const auto& [labels, sum] : sums) {
      prometheus::sample(out, std::string(name) + "{" + labels + "}", static_cast<double>(sum.*field));
    }
  };
  const auto counter = [&](const char* name, const char* help, std::uint64_t Sum::*field) {
    prometheus::family(out, name, "counter", help);
    for (const auto& [labels, sum] : sums) prometheus::sample(out, std::string(name) + "{" + labels + "}", sum.*field);
  };
  gauge("tiffany_pubsub_redis_connected", "Pub/sub links to Redis up now (one per worker and bus).", &Sum::connected);
  counter("tiffany_pubsub_redis_connects_total", "Connections to Redis made ready (AUTH and PING answered).",
          &Sum::connects);
  counter("tiffany_pubsub_redis_connect_failures_total",
          "Tries to connect to Redis that failed: unreachable, TLS, AUTH refused, or no answer in time.",
          &Sum::failures);
  prometheus::family(out, "tiffany_pubsub_redis_losses_total", "counter",
                     "Links to Redis dropped, by why: closed, write_timeout, answer_timeout (no answer to a command "
                     "or PING in time), refused (a SUBSCRIBE), protocol.");
  for (const auto& [labels, sum] : sums) {
    for (std::size_t i = 0; i < sum.losses.size(); ++i) {
      prometheus::sample(out, "tiffany_pubsub_redis_losses_total{" + labels + ",reason=\"" +
                                  RedisMetrics::kLossNames[i] + "\"}",
                         sum.losses[i]);
    }
  }
  counter("tiffany_pubsub_redis_publishes_refused_total",
          "Publishes refused: Redis unreachable, or the link's queue at its bound.", &Sum::refused);
  gauge("tiffany_pubsub_redis_queued_bytes", "Bytes of commands waiting to go to Redis, or going.", &Sum::queued);
  gauge("tiffany_pubsub_redis_queued_bytes_peak", "The most bytes one worker has had queued for Redis.", &Sum::peak);
}

}  // namespace tiffany

// UpstreamGroup: one worker's view of an upstream: its servers, their health, and the balancer that picks one.
#include "client/upstream/upstream_group.hpp"

#include <algorithm>

namespace tiffany::upstream {
namespace {

std::vector<std::pair<std::string, int>> ring_servers(const UpstreamConfig& config) {
  std::vector<std::pair<std::string, int>> servers;
  for (const UpstreamServerConfig& server : config.servers) {
    // Why weight 0 for backups: they hold no ring points, so they take keys
    // only through the all-primaries-down fallback.
    servers.emplace_back(server.to_string(), server.backup ? 0 : server.weight);
  }
  return servers;
}

}  // namespace

UpstreamGroup::UpstreamGroup(const UpstreamConfig& config) : balance_(config.balance), ring_(ring_servers(config)) {
  const int rise = config.health ? config.health->rise : 1;
  const int fall = config.health ? config.health->fall : 1;
  // Why none for a group of one (nginx ignores max_fails there too): taking
  // its only server out turns one failure into fail_timeout_ms of 502s
  // without a try, when the next request would as likely have worked.
  const int max_fails = config.servers.size() == 1 ? 0 : config.max_fails;
  for (const UpstreamServerConfig& server : config.servers) {
    servers_.push_back(Server{server, ServerHealth(max_fails, std::chrono::milliseconds(config.fail_timeout_ms), rise, fall)});
  }
}

std::optional<std::size_t> UpstreamGroup::pick(std::string_view key, std::span<const std::size_t> tried, TimePoint now) {
  if (const std::optional<std::size_t> picked = pick_among(key, tried, now, false)) return picked;
  // Why the down ones then: every server is down (or probed by another
  // request), and refusing every request until one comes back would turn a
  // blip into fail_timeout_ms of 502s; one of them may well answer now.
  return pick_among(key, tried, now, true);
}

std::optional<std::size_t> UpstreamGroup::pick_among(std::string_view key, std::span<const std::size_t> tried,
                                                     TimePoint now, bool down_too) {
  const auto was_tried = [&](std::size_t index) { return std::find(tried.begin(), tried.end(), index) != tried.end(); };
  // Why four passes: primaries before backups, and untried before tried (a
  // retry goes to the same server only when it is the only one left).
  for (bool backups : {false, true}) {
    for (bool allow_tried : {false, true}) {
      std::vector<bool> eligible(servers_.size());
      bool any = false;
      for (std::size_t i = 0; i < servers_.size(); ++i) {
        eligible[i] = servers_[i].config.backup == backups && (down_too || servers_[i].health.available(now)) &&
                      (allow_tried || !was_tried(i));
        any = any || eligible[i];
      }
      if (!any) continue;
      if (balance_ == UpstreamBalance::hash && !backups && !key.empty()) {
        const std::size_t found = ring_.find(key, [&](std::size_t i) { return eligible[i]; });
        if (found != HashRing::npos) return found;
      }
      if (balance_ == UpstreamBalance::least_conn) return pick_least_conn(eligible);
      return pick_round_robin(eligible);
    }
  }
  return std::nullopt;
}

// nginx's smooth weighted round robin: every eligible server's current weight
// grows by its weight; the largest wins and gives back the total. A {5,1,1}
// group thus goes a a b a c a a, not a a a a a b c.
std::optional<std::size_t> UpstreamGroup::pick_round_robin(const std::vector<bool>& eligible) {
  std::optional<std::size_t> best;
  std::int64_t total = 0;
  for (std::size_t i = 0; i < servers_.size(); ++i) {
    if (!eligible[i]) continue;
    Server& server = servers_[i];
    server.current_weight += server.config.weight;
    total += server.config.weight;
    if (!best || server.current_weight > servers_[*best].current_weight) best = i;
  }
  if (best) servers_[*best].current_weight -= total;
  return best;
}

// Fewest requests in flight per unit of weight (a/wa < b/wb as a*wb < b*wa);
// the search starts after the last pick, so ties go round instead of to the first.
std::optional<std::size_t> UpstreamGroup::pick_least_conn(const std::vector<bool>& eligible) {
  std::optional<std::size_t> best;
  for (std::size_t step = 0; step < servers_.size(); ++step) {
    const std::size_t i = (least_conn_next_ + step) % servers_.size();
    if (!eligible[i]) continue;
    if (!best || servers_[i].active * static_cast<std::size_t>(servers_[*best].config.weight) <
                     servers_[*best].active * static_cast<std::size_t>(servers_[i].config.weight)) {
      best = i;
    }
  }
  if (best) least_conn_next_ = (*best + 1) % servers_.size();
  return best;
}

void UpstreamGroup::begin(std::size_t server, TimePoint now) {
  ++servers_[server].active;
  servers_[server].health.begin(now);
}

HealthChange UpstreamGroup::end(std::size_t server, Outcome outcome, TimePoint now) {
  if (servers_[server].active > 0) --servers_[server].active;
  return servers_[server].health.end(outcome, now);
}

}  // namespace tiffany::upstream

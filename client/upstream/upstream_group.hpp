// UpstreamGroup: one worker's view of an upstream: its servers, their health, and the balancer that picks one.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "client/upstream/hash_ring.hpp"
#include "client/upstream/server_health.hpp"
#include "conf/config.hpp"

namespace tiffany::upstream {

/// Per worker, no locks. For each attempt of a request the proxy calls
/// pick(key, tried, now), then begin(server) before sending and
/// end(server, outcome) after, always, so least_conn counts and passive
/// health see every request. Servers down by health are skipped while any
/// other may take the request; when every one is down, pick() chooses among
/// them all the same (nginx's way). A group of one server ignores max_fails:
/// passive health never takes it out.
class UpstreamGroup {
 public:
  explicit UpstreamGroup(const UpstreamConfig& config);

  /// A server index. `key` is the hash key (hash_key.hpp; ignored unless
  /// balance is hash; empty: round robin);
  /// `tried` holds the servers this request already used: they are skipped
  /// while any other server is available, so a retry goes elsewhere.
  /// nullopt only for a group without servers.
  std::optional<std::size_t> pick(std::string_view key, std::span<const std::size_t> tried, TimePoint now);

  void begin(std::size_t server, TimePoint now);
  /// What the outcome did to the server's passive health (for the log and metrics).
  HealthChange end(std::size_t server, Outcome outcome, TimePoint now);
  HealthChange probe_result(std::size_t server, bool passed) { return servers_[server].health.probe_result(passed); }

  std::size_t size() const noexcept { return servers_.size(); }
  const UpstreamServerConfig& server(std::size_t index) const { return servers_[index].config; }
  ServerState state(std::size_t index, TimePoint now) const { return servers_[index].health.state(now); }
  std::size_t active_requests(std::size_t index) const { return servers_[index].active; }

 private:
  struct Server {
    UpstreamServerConfig config;
    ServerHealth health;
    std::size_t active = 0;
    std::int64_t current_weight = 0;  // smooth weighted round robin
  };

  /// pick() among the servers health lets take requests, or (`down_too`) among them all.
  std::optional<std::size_t> pick_among(std::string_view key, std::span<const std::size_t> tried, TimePoint now,
                                        bool down_too);
  std::optional<std::size_t> pick_round_robin(const std::vector<bool>& eligible);
  std::optional<std::size_t> pick_least_conn(const std::vector<bool>& eligible);

  UpstreamBalance balance_;
  std::vector<Server> servers_;
  HashRing ring_;                  // the non-backup servers, for hash balancing
  std::size_t least_conn_next_ = 0;  // where least_conn starts looking: ties go round
};

}  // namespace tiffany::upstream

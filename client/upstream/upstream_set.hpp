// UpstreamSet: one worker's upstream groups and retry budgets, found by the name a proxy route gives.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "client/upstream/retry_budget.hpp"
#include "client/upstream/upstream_group.hpp"
#include "conf/config.hpp"

namespace tiffany::upstream {

/// What a proxy route needs of its upstream on one worker: the config, the
/// balancer with its health state, and the retry budget.
struct Upstream {
  explicit Upstream(const UpstreamConfig& upstream_config)
      : config(upstream_config),
        group(upstream_config),
        retry_budget(upstream_config.retry_budget.percent, upstream_config.retry_budget.min_concurrent) {}

  UpstreamConfig config;
  UpstreamGroup group;
  RetryBudget retry_budget;
};

/// Built once per worker from Config::upstreams; no locks, never shared
/// between workers. Entries are stable (std::map nodes): a handler may keep
/// the Upstream* it found for as long as the set lives.
class UpstreamSet {
 public:
  explicit UpstreamSet(const std::vector<UpstreamConfig>& upstreams) {
    for (const UpstreamConfig& upstream : upstreams) by_name_.try_emplace(upstream.name, upstream);
  }

  /// The upstream called `name`, or null (the loader has checked proxy routes' names).
  Upstream* find(std::string_view name) {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &it->second;
  }
  std::size_t size() const noexcept { return by_name_.size(); }

 private:
  std::map<std::string, Upstream, std::less<>> by_name_;
};

}  // namespace tiffany::upstream

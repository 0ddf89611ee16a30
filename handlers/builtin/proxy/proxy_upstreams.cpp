// ProxyUpstreams: runtimes made on first ask, the thread's current registry, and the probe tasks.
#include "handlers/builtin/proxy/proxy_upstreams.hpp"

#include <tiffany/coro/scheduler.hpp>

namespace tiffany::proxy {
namespace {

thread_local ProxyUpstreams* current_upstreams = nullptr;

}  // namespace

ProxyUpstreams::ProxyUpstreams(const std::vector<UpstreamConfig>& configs, bool serving) : serving_(serving) {
  for (const UpstreamConfig& config : configs) configs_.emplace(config.name, &config);
}

std::shared_ptr<UpstreamRuntime> ProxyUpstreams::get(const std::string& name) {
  if (auto made = made_.find(name); made != made_.end()) return made->second;
  const auto config = configs_.find(name);
  if (config == configs_.end()) return nullptr;
  auto runtime = std::make_shared<UpstreamRuntime>(*config->second, serving_);
  made_.emplace(name, runtime);
  return runtime;
}

void ProxyUpstreams::start_probes() {
  if (!serving_) return;
  for (const auto& [name, runtime] : made_) {
    if (runtime->config().health) (void)Scheduler::current().spawn(UpstreamRuntime::probe_loop(runtime));
  }
}

ProxyUpstreams* ProxyUpstreams::current() noexcept { return current_upstreams; }

ProxyUpstreams::Scope::Scope(ProxyUpstreams& upstreams) noexcept : previous_(current_upstreams) {
  current_upstreams = &upstreams;
}

ProxyUpstreams::Scope::~Scope() { current_upstreams = previous_; }

}  // namespace tiffany::proxy

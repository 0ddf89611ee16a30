// ProxyUpstreams: runtimes made on first ask, kept in the worker's context, and their probe tasks.
#include "handlers/builtin/proxy/proxy_upstreams.hpp"

namespace tiffany::proxy {

std::shared_ptr<UpstreamRuntime> ProxyUpstreams::runtime_for(WorkerContext& worker,
                                                             const std::vector<UpstreamConfig>& configs,
                                                             const std::string& name) {
  if (worker.checking()) {
    for (const UpstreamConfig& config : configs) {
      if (config.name == name) return std::make_shared<UpstreamRuntime>(config, false);
    }
    return nullptr;
  }
  ProxyUpstreams* upstreams = worker.find<ProxyUpstreams>();
  if (upstreams == nullptr) upstreams = &worker.emplace<ProxyUpstreams>(worker, configs);
  return upstreams->get(name);
}

ProxyUpstreams::ProxyUpstreams(WorkerContext& worker, const std::vector<UpstreamConfig>& configs) : worker_(worker) {
  for (const UpstreamConfig& config : configs) configs_.emplace(config.name, &config);
}

std::shared_ptr<UpstreamRuntime> ProxyUpstreams::get(const std::string& name) {
  if (auto made = made_.find(name); made != made_.end()) return made->second;
  const auto config = configs_.find(name);
  if (config == configs_.end()) return nullptr;
  auto runtime = std::make_shared<UpstreamRuntime>(*config->second, true);
  made_.emplace(name, runtime);
  if (runtime->config().health) worker_.spawn(UpstreamRuntime::probe_loop(runtime));
  return runtime;
}

}  // namespace tiffany::proxy

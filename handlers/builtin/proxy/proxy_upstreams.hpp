// ProxyUpstreams: one worker's registry of UpstreamRuntime by upstream name, shared by its proxy routes.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <tiffany/handlers/plugin_context.hpp>

#include "handlers/builtin/proxy/upstream_runtime.hpp"

namespace tiffany::proxy {

/// State in the built-in handlers' WorkerContext on one worker (the server
/// gives the built-ins a context per worker, as each plugin's handlers get
/// theirs), made by the first `proxy` route built there: the `proxy`
/// factory asks it for the runtime of its route's upstream, made on the
/// first ask, so every route naming one upstream shares it.
/// Why state in the factory's context: a factory is given its params only
/// (the plugin SDK's signature), and they carry the context
/// (HandlerParams::worker()); so no thread-local scope, and the server
/// names no proxy type. Worker thread only.
class ProxyUpstreams {
 public:
  /// The runtime of upstream `name` for a route built with `worker`, or
  /// null if `configs` (the config's upstreams, which outlive the
  /// handlers) has none of that name. On a worker: the one `worker`'s
  /// registry holds (the registry and the runtime made on the first ask).
  /// While the config is checked (worker.checking(), a context that holds
  /// no state and runs no task): a runtime of the route's own, with no
  /// metrics rows and no probe.
  static std::shared_ptr<UpstreamRuntime> runtime_for(WorkerContext& worker, const std::vector<UpstreamConfig>& configs,
                                                      const std::string& name);

  /// `worker`: the built-ins' context it is state of (not checking()).
  ProxyUpstreams(WorkerContext& worker, const std::vector<UpstreamConfig>& configs);

  /// The runtime of upstream `name`, made on first use; null if undefined.
  /// A runtime made with `health` gets its probe task as one of the
  /// worker's background tasks (WorkerContext::spawn): it starts when the
  /// worker's scheduler runs, and ends by itself once the runtime is
  /// destroyed (or with the scheduler).
  std::shared_ptr<UpstreamRuntime> get(const std::string& name);

 private:
  WorkerContext& worker_;
  std::map<std::string, const UpstreamConfig*> configs_;
  std::map<std::string, std::shared_ptr<UpstreamRuntime>> made_;
};

}  // namespace tiffany::proxy

// ProxyUpstreams: one worker's registry of UpstreamRuntime by upstream name, shared by its proxy routes.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "handlers/builtin/proxy/upstream_runtime.hpp"

namespace tiffany::proxy {

/// Made by whoever builds a worker's handlers (server/worker.cpp), once per
/// worker, and made current on that thread with a Scope while the handlers
/// are built: the `proxy` factory asks it for the runtime of its upstream,
/// made on the first ask, so every route naming one upstream shares it.
/// Why a thread-local scope rather than a factory argument: handler
/// factories take only their params (the plugin SDK's signature).
class ProxyUpstreams {
 public:
  /// `serving`: a worker's (metrics rows, probes); false: a config check.
  ProxyUpstreams(const std::vector<UpstreamConfig>& configs, bool serving);

  /// The runtime of upstream `name`, made on first use; null if undefined.
  std::shared_ptr<UpstreamRuntime> get(const std::string& name);
  /// Spawns one health probe task per upstream with `health` that a route
  /// uses, on the calling thread's scheduler (once it exists). Each ends by
  /// itself once its runtime is destroyed with the last route using it.
  void start_probes();

  /// The registry current on this thread (null outside a Scope).
  static ProxyUpstreams* current() noexcept;

  class Scope {
   public:
    explicit Scope(ProxyUpstreams& upstreams) noexcept;
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope();

   private:
    ProxyUpstreams* previous_;
  };

 private:
  std::map<std::string, const UpstreamConfig*> configs_;
  std::map<std::string, std::shared_ptr<UpstreamRuntime>> made_;
  bool serving_;
};

}  // namespace tiffany::proxy

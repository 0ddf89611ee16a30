// build_tls_contexts: each listener's TLS context, read once per process from the config.
#pragma once

#include <memory>
#include <vector>

namespace tiffany {

struct Config;
namespace tls {
class TlsContext;
}

/// Each listener's TLS context (null for plain listeners), in config order.
/// Built once per process and shared by the workers: OpenSSL contexts are
/// thread-safe, and one context means one session cache and ticket key.
/// Throws ConfigError for a bad certificate, key or setting.
using TlsContexts = std::vector<std::shared_ptr<const tls::TlsContext>>;
TlsContexts build_tls_contexts(const Config& config);

}  // namespace tiffany

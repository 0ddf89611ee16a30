// build_tls_contexts: a TlsContext for each TLS listener, none for the others.
#include "server/build_tls_contexts.hpp"

#include "conf/config.hpp"
#include "server/transport/tls/tls_context.hpp"

namespace tiffany {

TlsContexts build_tls_contexts(const Config& config) {
  TlsContexts contexts;
  for (const ListenerConfig& listener : config.listeners) {
    if (!listener.tls) {
      contexts.push_back(nullptr);
      continue;
    }
    // Why ALPN only for http: it names the application protocol, and echo has none to agree on.
    std::vector<std::string> alpn;
    if (listener.protocol == Protocol::http) {
      if (listener.http2.enabled) alpn.push_back("h2");
      alpn.push_back("http/1.1");
    }
    contexts.push_back(std::make_shared<const tls::TlsContext>(*listener.tls, config.file, alpn));
  }
  return contexts;
}

}  // namespace tiffany

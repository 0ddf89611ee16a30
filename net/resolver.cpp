// Resolver: the public face of AresChannel, and each thread's default resolver.
#include <tiffany/net/resolver.hpp>

#include "coro/engine/worker_local.hpp"
#include "net/internal/ares_channel.hpp"

namespace tiffany {

std::string_view to_string(ResolveErrorKind kind) noexcept {
  switch (kind) {
    case ResolveErrorKind::not_found:
      return "not_found";
    case ResolveErrorKind::server_failure:
      return "server_failure";
    case ResolveErrorKind::timeout:
      return "timeout";
    case ResolveErrorKind::bad_name:
      return "bad_name";
    case ResolveErrorKind::other:
      break;
  }
  return "other";
}

Resolver::Resolver(ResolverOptions options) : channel_(std::make_shared<detail::AresChannel>(std::move(options))) {}

Resolver::~Resolver() = default;

Resolver& Resolver::for_this_thread() {
  // Why made on first use: a worker that never resolves never reads resolv.conf.
  return worker_local<Resolver>();
}

Task<ResolveResult> Resolver::resolve(std::string host) {
  return detail::AresChannel::resolve(channel_, std::move(host));
}

std::size_t Resolver::cached() const noexcept { return channel_->cached(); }

Task<ResolveResult> resolve(std::string host) { return Resolver::for_this_thread().resolve(std::move(host)); }

}  // namespace tiffany

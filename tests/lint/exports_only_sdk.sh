#!/usr/bin/env bash
# Checks the tiffany executable's dynamic symbols: the SDK is exported (what
# plugins call), the internals are not (reactors, transports, connections,
# workers, the router, built-in handlers, the plugin loader).
# Usage: exports_only_sdk.sh PATH/TO/tiffany
set -euo pipefail
exported=$(nm -D --defined-only "$1" | awk '{print $NF}' | c++filt)
status=0
for internal in 'tiffany::UringReactor::' 'tiffany::EpollReactor::' 'tiffany::IdlePark::' 'tiffany::HttpConnection::' \
                'tiffany::Worker::' 'tiffany::TlsStream::' 'tiffany::PlainTransport::' 'tiffany::Router::' \
                'tiffany::StaticHandler::' 'tiffany::load_plugin(' 'tiffany::RequestParser::' 'tiffany::tls::TlsStream::' \
                'tiffany::detail::AresChannel::' 'tiffany::detail::happy_eyeballs('; do
  if grep -qF "$internal" <<<"$exported"; then
    echo "exported, but internal: $(grep -F "$internal" <<<"$exported" | head -1)"
    status=1
  fi
done
for sdk in 'tiffany::Scheduler::wake(' 'tiffany::Logger::log(' 'tiffany::HandlerParams::string(' \
           'tiffany::Scheduler::tls_current_' 'tiffany::http::Headers::add(' 'tiffany::WorkerContext::spawn(' \
           'tiffany::detail::allocate_frame(' 'tiffany::tcp_connect(' 'tiffany::Resolver::resolve(' \
           'tiffany::SocketAddress::from_numeric(' 'vtable for tiffany::SocketStream'; do
  if ! grep -qF "$sdk" <<<"$exported"; then
    echo "not exported, but part of the SDK: $sdk"
    status=1
  fi
done
[ "$status" = 0 ] && echo "tiffany exports the SDK's $(wc -l <<<"$exported") symbols and no internals"
exit "$status"

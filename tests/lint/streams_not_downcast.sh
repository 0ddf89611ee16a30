#!/usr/bin/env bash
# Fails if code outside the transports asks which stream or reactor it holds
# (a dynamic_cast to a *Stream or *Reactor type) or polls a descriptor itself
# (::poll, ::ppoll, ::select): ByteStream says what callers need (encrypted,
# socket, has_buffered_input, input_ready, wait_readable, shutdown_write) and
# Reactor says queues_operations; a readiness wait is ReadWait or
# ByteStream::wait_readable. The transports are net/ (the streams), reactor/
# (the backends) and server/transport/. Why the one file: the main thread's
# signal wait (server/server_signals.cpp) runs before and after any
# scheduler, on a signalfd, where there is no reactor to wait with.
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
sources=$(git ls-files '*.cpp' '*.hpp' '*.h' '*.c' | grep -vE '^(net|reactor|server/transport|tests|loadtest)/' |
  grep -vx 'server/server_signals.cpp')
offenders=$(echo "$sources" | xargs -r grep -nE \
  -e 'dynamic_cast<[^>]*(Stream|Reactor)[^>]*>' -e '(^|[^A-Za-z0-9_])::(poll|ppoll|select|pselect)\(' || true)
if [ -n "$offenders" ]; then
  echo "code outside the transports that downcasts a stream or reactor, or polls a descriptor itself"
  echo "(ask ByteStream or Reactor instead; see tests/lint/streams_not_downcast.sh):"
  echo "$offenders"
  exit 1
fi
echo "no stream or reactor is downcast, and nothing polls a descriptor, outside the transports"

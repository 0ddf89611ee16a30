#!/bin/sh
# Prints the plugin SDK's public headers, one source-relative path a line: the
# one rule that decides what is installed under include/tiffany/ (CMake reads
# it at configure time; the include lint and the installed-SDK test read it too).
#
# The rule follows the layout: every header of coro/, reactor/, net/, http/,
# client/ and handlers/ is public, except client/upstream/ (the proxy's
# upstream groups: the server's, not the SDK's) and those in a folder named
#   internal/         a folder's own machinery, private to it (reactor
#                     backends, the c-ares channel, the client's pools)
#   engine/           machinery Tiffany's own folders share and plugins do
#                     not see (the plugin loader, the request parser, content
#                     coding, TLS streams, metrics)
#   builtin/          the built-in handlers and middleware: users of the SDK
#   example_plugins/  the example plugins: users of the SDK
# Public headers include each other as <tiffany/…>, never as "…" paths.
set -eu
cd "${1:-$(dirname "$0")/..}"
find coro reactor net http client handlers -name '*.hpp' \
  -not -path 'client/upstream/*' -not -path '*/internal/*' -not -path '*/engine/*' -not -path '*/builtin/*' -not -path '*/example_plugins/*' | LC_ALL=C sort

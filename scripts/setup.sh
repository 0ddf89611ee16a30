#!/usr/bin/env bash
# Installs the Debian packages Tiffany needs to build, test and benchmark.
# Idempotent: installs only what is missing, and is quick when nothing is.
set -euo pipefail

packages=(
  g++ cmake ninja-build make pkg-config # toolchain (make: CMake's default generator, for plugin projects)
  dpkg-dev                              # dpkg-buildflags: the package's compiler flags (scripts/build.sh)
  ccache                                # compiler cache: rebuilds of unchanged sources (scripts/lib/compiler_cache.sh)
  liburing-dev                          # io_uring
  node-llhttp libssl-dev picojson-dev   # HTTP parser sources, TLS, JSON config
  libc-ares-dev                         # name resolution on the reactor (net/)
  libnghttp2-dev                        # HTTP/2 framing, HPACK and flow control
  zlib1g-dev libbrotli-dev libzstd-dev  # content coding: gzip, br, zstd
  libcrypt-dev                          # libxcrypt: crypt_rn for basic_auth's password hashes
  openssl                               # certificates for HTTPS (run.sh, tests) and TLS test clients
  libgtest-dev libgmock-dev googletest  # tests
  python3-h2 nghttp2-client             # HTTP/2 peers: the raw-frame driver (tests/integration/http2), nghttp, h2load
  python3-websockets                    # the WebSocket peer of tests/integration/websocket and pubsub
  redis-server                          # the Redis that pub/sub's tests start on loopback (its redis-cli too)
  libbenchmark-dev                      # micro-benchmarks
  wrk curl                              # load generator; curl for the HTTP tests
  nginx-light                           # the real upstream of the client and proxy tests (started by them)
  haproxy                               # the load balancer in front in the PROXY protocol tests (started by them)
  systemd logrotate                     # systemd-analyze verify and logrotate --debug check the shipped unit and snippet
  man-db groff-base bsdextrautils       # man, groff and col render tiffany(8) for its test
)

# Why no service start: the tests run their own nginx and HAProxy on free
# loopback ports; packaged ones started by the install would listen on port 80.
TIFFANY_NO_SERVICE_START=1 exec "$(dirname "$0")/install_missing.sh" setup "${packages[@]}"

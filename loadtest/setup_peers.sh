#!/usr/bin/env bash
# Installs what the benchmarks need beyond scripts/setup.sh: the peer servers
# Tiffany is read against (nginx, h2o, and haproxy for the reverse-proxy
# benchmark), wrk and h2load, gnuplot for the chart, bc and curl. Idempotent: installs
# only what is missing, and is quick when nothing is. The packages' services
# are never started: the benchmarks run their own copies on loopback, and a
# packaged nginx, h2o or haproxy would listen on port 80.
set -euo pipefail

packages=(
  nginx-light h2o   # peers
  haproxy           # peer of the reverse-proxy benchmark
  wrk               # load generator
  nghttp2-client    # h2load, the HTTP/2 load generator (h2_bench.sh)
  gnuplot-nox bc    # chart, arithmetic
  curl iproute2     # route checks before the runs, listening-socket check (ss)
)

TIFFANY_NO_SERVICE_START=1 exec "$(dirname "$0")/../scripts/install_missing.sh" setup_peers "${packages[@]}"

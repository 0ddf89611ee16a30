#!/usr/bin/env bash
# Installs the Debian packages Tiffany needs to build, test and benchmark.
# Idempotent: installs only what is missing, and is quick when nothing is.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config      # toolchain
  liburing-dev                          # io_uring
  node-llhttp libssl-dev picojson-dev   # HTTP parser sources, TLS, JSON config
  openssl                               # certificates for HTTPS (run.sh, tests) and TLS test clients
  libgtest-dev libgmock-dev googletest  # tests
  wrk curl                              # load generator; curl for the HTTP tests
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# Installs what loadtest/http_bench.sh needs beyond scripts/setup.sh: the peer
# servers Tiffany is read against (nginx, h2o), wrk, gnuplot for the chart, bc
# and curl. Idempotent: installs only what is missing, and is quick when
# nothing is. The packages' services are never started: the benchmark runs its
# own copies on loopback, and a packaged nginx or h2o would listen on port 80.
set -euo pipefail

packages=(
  nginx-light h2o   # peers
  wrk               # load generator
  gnuplot-nox bc    # chart, arithmetic
  curl iproute2     # route checks before the runs, listening-socket check (ss)
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup_peers: installing ${missing[*]}"
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)

# Why: Debian starts a freshly installed service unless policy-rc.d says no (101);
# install under such a policy when the machine has none, and remove it after.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 755 "$policy"
  trap '"${as_root[@]}" rm -f "$policy"' EXIT
fi

"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# Installs those of the given Debian packages that are missing; quick when none are.
# usage: scripts/install_missing.sh LABEL PACKAGE...   (LABEL starts the message it prints)
# With TIFFANY_NO_SERVICE_START=1, packaged services (nginx, h2o, haproxy) are not started.
set -euo pipefail
label=$1
shift

missing=()
for package in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "$label: installing ${missing[*]}"
# Why a lock: CI runs builds beside suites (.ci/run), and two apt-gets at
# once would fail on apt's own lock; the second waits for the first here.
exec 9>"${TMPDIR:-/tmp}/tiffany-install-missing.lock"
flock 9
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)

policy=/usr/sbin/policy-rc.d
if [ "${TIFFANY_NO_SERVICE_START:-0}" = 1 ] && [ ! -e "$policy" ]; then
  # Why: Debian starts a freshly installed service unless policy-rc.d says no (101).
  printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 755 "$policy"
  trap '"${as_root[@]}" rm -f "$policy"' EXIT
fi

"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# Sets up, builds and runs tiffany on the shipped config (extra arguments are passed on).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build_dir=$(scripts/build.sh | tail -n 1)
scripts/make-dev-cert.sh  # the HTTPS listener's certificate, made on first use
exec "$build_dir/server/tiffany" --config conf/tiffany.json "$@"

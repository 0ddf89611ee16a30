#!/usr/bin/env bash
# Sets up, builds and runs every test (unit and integration) with CTest.
# TIFFANY_SANITIZE=address,undefined scripts/test.sh runs them under sanitizers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build_dir=$(scripts/build.sh | tail -n 1)
cd "$build_dir"
ctest --output-on-failure -j "$(nproc)"

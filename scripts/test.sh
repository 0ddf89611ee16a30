#!/usr/bin/env bash
# Sets up, builds and runs every test (unit and integration) with CTest.
# TIFFANY_SANITIZE=address,undefined scripts/test.sh runs them under sanitizers;
# TIFFANY_SANITIZE=thread scripts/test.sh the suites that run code on several threads.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build_dir=$(scripts/build.sh | tail -n 1)
cd "$build_dir"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# Under TSan: the suites whose code runs on several threads (tests/CMakeLists.txt, THREADS).
selection=()
[ "${TIFFANY_SANITIZE:-}" != thread ] || selection=(-L threads)
ctest --output-on-failure -j "$(nproc)" "${selection[@]}" | tee "$log" || status=$?
"$OLDPWD/scripts/check_skips.sh" "${TIFFANY_SANITIZE:-}" <"$log" || status=$?
exit "$status"

#!/usr/bin/env bash
# Sets up, builds and runs every test (unit and integration) with CTest.
# TIFFANY_SANITIZE=address,undefined scripts/test.sh runs them under ASan+UBSan
# on io_uring (the epoll backend's own unit tests included);
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
case ${TIFFANY_SANITIZE:-} in
  thread) selection=(-L threads) ;;
  # Why not the integration suites' second run on epoll (epoll.*), nor the
  # checks that only compile or read sources (the installed headers, Lint.*):
  # they are two fifths of this run's time; above the reactor the server runs
  # the same code on both backends, and the epoll reactor's own unit tests
  # run here all the same (docs/development.md, "CI's budget").
  address,undefined) selection=(-E '^(epoll\.|Lint\.|InstalledSdk\.EachInstalledHeaderCompiles)') ;;
esac
ctest --output-on-failure -j "$(nproc)" "${selection[@]}" | tee "$log" || status=$?
"$OLDPWD/scripts/check_skips.sh" "${TIFFANY_SANITIZE:-}" <"$log" || status=$?
exit "$status"

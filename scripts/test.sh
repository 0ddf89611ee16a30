#!/usr/bin/env bash
# Sets up, builds and runs every test (unit and integration) with CTest.
# TIFFANY_SANITIZE=address,undefined scripts/test.sh runs them under ASan+UBSan
# on io_uring (the epoll backend's own unit tests included);
# TIFFANY_SANITIZE=thread scripts/test.sh the suites that run code on several threads.
# A sanitized run builds the plain build too: its integration suites (the
# executables that drive the real binary, labelled drives-binary) are the plain
# build's, pointed at the sanitized build's binary and plugins
# (TIFFANY_BUILD_UNDER_TEST, tests/integration/build_under_test.hpp); the
# sanitizers watch the server, and those suites compile once per CI run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
sanitize=${TIFFANY_SANITIZE:-}
build_dir=$PWD/$(scripts/build.sh | tail -n 1)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# What runs in the build itself, and (sanitized) which of the plain build's
# integration suites run against it.
selection=()
drivers=()
case $sanitize in
  # Under TSan: the suites whose code runs on several threads (tests/CMakeLists.txt, THREADS).
  thread)
    selection=(-L threads)
    drivers=(-L '^threads-drives-binary$') ;;
  # Why not the integration suites' second run on epoll (epoll.*), nor the
  # checks that only compile or read sources (the installed headers, Lint.*):
  # they are two fifths of this run's time; above the reactor the server runs
  # the same code on both backends, and the epoll reactor's own unit tests
  # run here all the same (docs/development.md, "CI's budget").
  address,undefined)
    selection=(-E '^Lint\.')
    drivers=(-L drives-binary -E '^(epoll\.|InstalledSdk\.EachInstalledHeaderCompiles)') ;;
  '') ;;
  *) drivers=(-L drives-binary) ;;
esac
(cd "$build_dir" && ctest --output-on-failure -j "$(nproc)" "${selection[@]}") | tee "$log" || status=$?
if [ -n "$sanitize" ]; then
  plain_dir=$PWD/$(env -u TIFFANY_SANITIZE scripts/build.sh | tail -n 1)
  echo "test: the plain build's integration suites against $build_dir's binary and plugins"
  (cd "$plain_dir" && TIFFANY_BUILD_UNDER_TEST=$build_dir ctest --output-on-failure -j "$(nproc)" "${drivers[@]}") |
    tee -a "$log" || status=$?
fi
scripts/check_skips.sh "$sanitize" <"$log" || status=$?
exit "$status"

#!/usr/bin/env bash
# Configures and builds Tiffany. Prints the build directory on its last line.
# Environment: TIFFANY_SANITIZE (e.g. address,undefined; own build dir; with
#                thread only the suites that run code on several threads),
#              TIFFANY_WERROR=ON (CI; unset keeps the build dir's setting, OFF in a
#              new one), BUILD_TYPE (default RelWithDebInfo).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/compiler_cache.sh

sanitize=${TIFFANY_SANITIZE:-}
build_dir=build${sanitize:+-san-${sanitize//,/-}}
# Why only when set: a run without it (a benchmark, test.sh by hand) must not
# flip a WERROR=ON build dir to OFF, which recompiles everything (twice).
werror=()
[ -z "${TIFFANY_WERROR:-}" ] || werror=(-DTIFFANY_WERROR="$TIFFANY_WERROR")
cmake -S . -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DTIFFANY_SANITIZE="$sanitize" \
  "${werror[@]}" "${compiler_cache[@]}" >/dev/null
# Why only the thread suites under TSan: see tests/CMakeLists.txt (tiffany_thread_suites).
targets=()
[ "$sanitize" != thread ] || targets=(--target tiffany_thread_suites)
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}" >&2
echo "$build_dir"

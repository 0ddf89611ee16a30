#!/usr/bin/env bash
# Configures and builds Tiffany. Prints the build directory on its last line.
# Environment: TIFFANY_SANITIZE (e.g. address,undefined; own build dir),
#              TIFFANY_WERROR=ON (CI), BUILD_TYPE (default RelWithDebInfo).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/compiler_cache.sh

sanitize=${TIFFANY_SANITIZE:-}
build_dir=build${sanitize:+-san-${sanitize//,/-}}
cmake -S . -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DTIFFANY_SANITIZE="$sanitize" \
  -DTIFFANY_WERROR="${TIFFANY_WERROR:-OFF}" "${compiler_cache[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" >&2
echo "$build_dir"

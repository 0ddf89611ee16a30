#!/usr/bin/env bash
# Installs Tiffany for plugin authors — the binary, the SDK headers, the test kit and the
# CMake package — into PREFIX (default ~/tiffany), building only what that
# needs (no tests, no benchmarks). Installs missing Debian packages first.
# Usage: scripts/sdk.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-$HOME/tiffany}
scripts/setup.sh
cmake -S . -B build-sdk -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTIFFANY_BUILD_TESTS=OFF >/dev/null
cmake --build build-sdk --target tiffany tiffany_testkit_bundle -j "$(nproc)"  # the binary and the test kit
cmake --install build-sdk --prefix "$prefix"
echo "Tiffany installed in $prefix: build plugins with -DCMAKE_PREFIX_PATH=$prefix"

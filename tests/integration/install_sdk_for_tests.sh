#!/usr/bin/env bash
# The InstalledSdk tests' shared set-up (CTest fixture "installed_sdk", run once
# before them): installs the built Tiffany to OUT/prefix, then builds a copy of
# handlers/example_plugins out of tree against it, exactly as a plugin author
# would (find_package(Tiffany), CMake's default generator), in OUT/my-plugins.
# Writes OUT/ready when every step passed; a failing step fails this test, and
# CTest then fails the tests that need it instead of skipping them.
# TIFFANY_BUILD_UNDER_TEST (a sanitized run of the plain build's suites,
# scripts/test.sh): that build is installed, to the same place within it, where
# the plugin suite looks (tests/integration/build_under_test.hpp).
#   install_sdk_for_tests.sh BUILD_DIR SOURCE_DIR OUT
set -euo pipefail
build_dir=$1 source_dir=$2 out=$3
if [ -n "${TIFFANY_BUILD_UNDER_TEST:-}" ]; then
  out=$TIFFANY_BUILD_UNDER_TEST${out#"$build_dir"}
  build_dir=$TIFFANY_BUILD_UNDER_TEST
fi
rm -rf "$out"
mkdir -p "$out"
cmake --install "$build_dir" --prefix "$out/prefix" >/dev/null
cp -r "$source_dir/handlers/example_plugins" "$out/my-plugins"
cmake -S "$out/my-plugins" -B "$out/my-plugins/build" -DCMAKE_PREFIX_PATH="$out/prefix" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$out/my-plugins/build" >/dev/null
touch "$out/ready"
echo "installed the SDK to $out/prefix and built the example plugins against it in $out/my-plugins/build"

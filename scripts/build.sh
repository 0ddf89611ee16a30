#!/usr/bin/env bash
# Configures and builds Tiffany. Prints the build directory on its last line.
# Environment: TIFFANY_SANITIZE (e.g. address,undefined; own build dir; with
#                thread only the suites that run code on several threads),
#              TIFFANY_WERROR=ON (CI; unset keeps the build dir's setting, OFF in a
#              new one), BUILD_TYPE (default: the package's flags, below;
#              e.g. RelWithDebInfo for CMake's own).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/compiler_cache.sh

sanitize=${TIFFANY_SANITIZE:-}
build_dir=build${sanitize:+-san-${sanitize//,/-}}
# Why only when set: a run without it (a benchmark, test.sh by hand) must not
# flip a WERROR=ON build dir to OFF, which recompiles everything (twice).
werror=()
[ -z "${TIFFANY_WERROR:-}" ] || werror=(-DTIFFANY_WERROR="$TIFFANY_WERROR")
# The plain build takes the Debian package's flags (dpkg-buildflags with
# hardening=+all, as debian/rules): the binary the suite passes is compiled as
# the one that ships (stack protector, _FORTIFY_SOURCE, relro and now), and
# the package build (scripts/build_deb.sh) finds every compile of the
# libraries and the binary in the compiler cache. The sanitized builds keep
# CMake's RelWithDebInfo under their own flags (CMakeLists.txt).
flags=(-DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}")
if [ -z "$sanitize" ] && [ -z "${BUILD_TYPE:-}" ]; then
  package_flags() { DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get "$1"; }
  cppflags=$(package_flags CPPFLAGS)
  ldflags=$(package_flags LDFLAGS)
  # As debhelper's cmake build system passes them: CPPFLAGS after CFLAGS and CXXFLAGS.
  flags=(-DCMAKE_BUILD_TYPE=None
    "-DCMAKE_C_FLAGS=$(package_flags CFLAGS) $cppflags"
    "-DCMAKE_CXX_FLAGS=$(package_flags CXXFLAGS) $cppflags")
  for kind in EXE SHARED MODULE; do flags+=("-DCMAKE_${kind}_LINKER_FLAGS=$ldflags"); done
fi
cmake -S . -B "$build_dir" -G Ninja "${flags[@]}" \
  -DTIFFANY_SANITIZE="$sanitize" \
  "${werror[@]}" "${compiler_cache[@]}" >/dev/null
# Why only the thread suites under TSan: see tests/CMakeLists.txt (tiffany_thread_suites).
targets=()
[ "$sanitize" != thread ] || targets=(--target tiffany_thread_suites)
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}" >&2
echo "$build_dir"

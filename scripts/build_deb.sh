#!/usr/bin/env bash
# Builds Tiffany's Debian packages (tiffany, tiffany-dev) from the tree and
# checks them with lintian. The build runs in a copy, build-deb/src (git
# ignores build*/), so the tree stays clean; the .debs land in build-deb/,
# which the last line prints. Installs missing build packages first.
# Usage: scripts/build_deb.sh        (then: tests/packaging/check_deb.sh build-deb)
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$PWD
out=$tree/build-deb

# Build-Depends of debian/control, and the tools that build and check.
TIFFANY_NO_SERVICE_START=1 scripts/install_missing.sh build_deb \
  debhelper dpkg-dev fakeroot lintian ccache \
  cmake ninja-build pkg-config liburing-dev node-llhttp libssl-dev picojson-dev libc-ares-dev \
  libnghttp2-dev zlib1g-dev libbrotli-dev libzstd-dev libcrypt-dev

# The files git knows (committed or not, less those deleted since) and new
# ones it does not ignore.
# Why a fixed folder: ccache hashes paths relative to it, so a second build
# of unchanged sources comes from the cache.
mkdir -p "$out"
rm -rf "$out/src" "$out"/*.deb "$out"/*.ddeb "$out"/*.changes "$out"/*.buildinfo
mkdir "$out/src"
git ls-files -z --cached --others --exclude-standard |
  xargs -0 sh -c 'for f; do if [ -e "$f" ] || [ -L "$f" ]; then printf "%s\0" "$f"; fi; done' sh |
  xargs -0 cp -P --parents -t "$out/src"

# Why the launcher through the environment: CMake reads it as the default of
# CMAKE_<LANG>_COMPILER_LAUNCHER; the compiler flags stay dpkg-buildflags'.
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR=$out/src CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
  # Why name the cache: debhelper 13 points HOME into the build tree, where
  # ccache would otherwise keep its cache, deleted with the copy next time.
  CCACHE_DIR=$(ccache -k cache_dir)
  export CCACHE_DIR
fi

(cd "$out/src" && nice -n 19 dpkg-buildpackage -us -uc -b -j"$(nproc)") >"$out/build.log" 2>&1 ||
  { tail -n 40 "$out/build.log" >&2; echo "build_deb: the package build failed; see $out/build.log" >&2; exit 1; }

# Errors and warnings fail; overrides (debian/*.lintian-overrides) say why.
lintian --fail-on error,warning --info "$out"/*.changes >&2
echo "$out"

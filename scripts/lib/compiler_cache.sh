# Sourced by the build scripts: sets `compiler_cache` to the CMake arguments
# that compile through ccache when it is installed (scripts/setup.sh installs
# it), and points ccache at this tree so that another clone of the same
# commit hits the same cache entries.
# Why: CI builds a fresh clone three times (plain, ASan+UBSan, TSan) plus the
# fuzzers on two cores; unchanged sources come from the cache instead of
# the compiler. A miss costs what a build without the cache costs.
compiler_cache=()
if command -v ccache >/dev/null 2>&1; then
  compiler_cache=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Paths under the tree are hashed relative to it, and the build folder's
  # own path (kept in the debug info) is left out of the hash.
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
fi

#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan+UBSan, build dir build-fuzz) and
# fuzzes HTTP request parsing and routing for SECONDS (default 60), seeded from
# ../shared/corpus/http1, tests/fuzz/seeds (requests for the fuzzer's routes) and
# tests/fuzz/regressions (inputs that once crashed it). Exits non-zero on a crash
# and prints the path of the input that caused it.
# Environment: TIFFANY_SHARED (default ../shared), TIFFANY_WERROR=ON (CI).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shared=${TIFFANY_SHARED:-$(cd .. && pwd)/shared}
seeds=$shared/corpus/http1
if [ ! -f "$seeds/http.dict" ]; then
  echo "fuzz: no seed corpus at $seeds (set TIFFANY_SHARED to the shared folder)" >&2
  exit 1
fi

# Installs only what is missing, like scripts/setup.sh.
packages=(clang libclang-rt-14-dev cmake ninja-build node-llhttp)
scripts/install_missing.sh fuzz "${packages[@]}"

build_dir=build-fuzz
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTIFFANY_FUZZ=ON \
  -DTIFFANY_WERROR="${TIFFANY_WERROR:-OFF}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target http_request_fuzzer
fuzzer=$build_dir/tests/fuzz/http_request_fuzzer

# Why: libFuzzer writes new inputs into its corpus, so it gets a scratch copy
# of the (read-only) shared seeds and of our own.
corpus=$(mktemp -d "${TMPDIR:-/tmp}/tiffany-fuzz-corpus.XXXXXX")
trap 'rm -rf "$corpus"' EXIT
for seed_dir in "$seeds"/*/ tests/fuzz/seeds/ tests/fuzz/regressions/; do
  if [ -d "$seed_dir" ]; then cp -r "$seed_dir" "$corpus/"; fi
done
chmod -R u+w "$corpus"

artifacts=$build_dir/artifacts
mkdir -p "$artifacts"
log=$build_dir/fuzz.log
echo "fuzz: http_request_fuzzer for ${seconds}s on $(find "$corpus" -type f | wc -l) seeds"
# The whole output goes to $log; the terminal skips the per-input NEW/REDUCE
# lines and the recommended dictionary (thousands of lines a minute).
set +e
UBSAN_OPTIONS=print_stacktrace=1 "$fuzzer" \
  -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=4096 \
  -dict="$seeds/http.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
  "$corpus" 2>&1 | tee "$log" |
  awk '/^#[0-9]+[ \t]+(NEW|REDUCE) /{next} /^[ \t]+NEW_FUNC/{next} /Recommended dictionary/{skip=1} !skip{print; fflush()} /End of recommended dictionary/{skip=0}'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
  crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
  echo "fuzz: FAILED (exit $status); crashing input: ${crash:-see $log}" >&2
  echo "fuzz: reproduce with $fuzzer ${crash:-<input>}" >&2
  exit 1
fi
echo "fuzz: no crash in ${seconds}s"

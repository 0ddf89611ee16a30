#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan+UBSan, build dir build-fuzz) and
# runs each for SECONDS (default 60): HTTP request parsing and routing, seeded
# from ../shared/corpus/http1, tests/fuzz/seeds (requests for the fuzzer's
# routes) and tests/fuzz/regressions (inputs that once crashed it), side by
# side with the outbound client's response parsing (tests/fuzz/response_seeds
# and response_regressions); then the plugin conveniences' body parsers
# (multipart, urlencoded forms, cookies, JSON), seeded from tests/fuzz/body_seeds
# and body_regressions, side by side with the PROXY protocol header parser
# (tests/fuzz/proxy_seeds); then the HTTP/2 glue (a whole connection over a
# socketpair: our nghttp2 callbacks, streams, handlers), two runs of it side by
# side with seeds one apart, seeded from ../shared/corpus/http2,
# tests/fuzz/http2_seeds and http2_regressions; then WebSocket's frame reader
# (MessageReader fed whole and in pieces, against a reference decoder and the
# server's frame writer; and permessage-deflate's inflating and deflating),
# seeded from tests/fuzz/websocket_seeds and websocket_regressions, side by
# side with pub/sub's Redis reply reader (RespReader, tests/fuzz/resp_seeds and resp_regressions).
# Exits non-zero on a crash and prints the path of the input that caused it.
# Why two at once: CI has two cores and a tight budget; eight runs take the
# wall time of four (4 × SECONDS), each with a core of its own.
# Random seeds: each run's seed comes from the commit (its hash), so a run
# on a fresh clone of a commit repeats the run CI makes of it, and each new
# commit fuzzes down a new path. TIFFANY_FUZZ_SEED overrides it (a number).
# A target stops after SECONDS or TIFFANY_FUZZ_RUNS inputs (default
# 1500000), whichever comes first: `scripts/fuzz.sh 900` on a fresh clone
# tries every input CI's 30-second run of the same commit can reach.
# `scripts/fuzz.sh --build-only` builds the targets and runs none (CI builds
# them beside a suite, .ci/run).
# Environment: TIFFANY_SHARED (default ../shared), TIFFANY_WERROR=ON (CI),
# TIFFANY_FUZZ_SEED, TIFFANY_FUZZ_RUNS.
set -euo pipefail
cd "$(dirname "$0")/.."

build_only=false
if [ "${1:-}" = --build-only ]; then
  build_only=true
  shift
fi
seconds=${1:-60}
shared=${TIFFANY_SHARED:-$(cd .. && pwd)/shared}
seeds=$shared/corpus/http1
h2_seeds=$shared/corpus/http2
if [ ! -f "$seeds/http.dict" ] || [ ! -d "$h2_seeds" ]; then
  echo "fuzz: no seed corpus at $seeds or $h2_seeds (set TIFFANY_SHARED to the shared folder)" >&2
  exit 1
fi

# Installs only what is missing, like scripts/setup.sh (the HTTP/2 target
# builds the server's HTTP pieces: TLS, c-ares, io_uring, nghttp2, codings).
packages=(clang libclang-rt-14-dev cmake ninja-build pkg-config node-llhttp picojson-dev libssl-dev libc-ares-dev
  liburing-dev libnghttp2-dev zlib1g-dev libbrotli-dev libzstd-dev libcrypt-dev ccache)
scripts/install_missing.sh fuzz "${packages[@]}"

# Why a seed per commit: a random one made CI a lottery (a run found a real
# bug the same commit's earlier runs had missed, and nobody could say which
# seed to try); a fixed one would fuzz the same inputs forever.
if [ -n "${TIFFANY_FUZZ_SEED:-}" ]; then
  seed=$TIFFANY_FUZZ_SEED
elif head=$(git rev-parse --short=7 HEAD 2>/dev/null); then
  seed=$((16#$head))
else
  seed=1
fi
# Why a cap on inputs too: a faster (quieter) machine runs more inputs in
# the same time; with the cap, a longer run of the same seed is a superset.
runs=${TIFFANY_FUZZ_RUNS:-1500000}
echo "fuzz: seed $seed (set TIFFANY_FUZZ_SEED to choose another), at most $runs inputs per target"

build_dir=build-fuzz
source scripts/lib/compiler_cache.sh
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTIFFANY_FUZZ=ON \
  -DTIFFANY_WERROR="${TIFFANY_WERROR:-OFF}" "${compiler_cache[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target http_request_fuzzer http_response_fuzzer body_parsers_fuzzer \
  proxy_header_fuzzer http2_connection_fuzzer websocket_frame_fuzzer resp_reader_fuzzer
if $build_only; then
  echo "fuzz: built the targets in $build_dir"
  exit 0
fi
artifacts=$build_dir/artifacts
mkdir -p "$artifacts"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/tiffany-fuzz-corpus.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# fuzz NAME SEED_DIR... [-- LIBFUZZER_FLAGS...]: runs one target for $seconds.
# NAME is a target, or TARGET.N: another run of it, seeded N past the commit's.
fuzz() {
  local name=$1 fuzzer=$build_dir/tests/fuzz/${1%%.*} corpus=$scratch/$1 flags=() run_seed=$seed
  [ "$name" = "${name%%.*}" ] || run_seed=$((seed + ${name#*.}))
  shift
  # Why a copy: libFuzzer writes new inputs into its corpus, and the shared
  # seeds are read-only.
  mkdir -p "$corpus"
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    if [ -d "$1" ]; then cp -r "$1" "$corpus/"; fi
    shift
  done
  [ $# -gt 0 ] && shift && flags=("$@")
  chmod -R u+w "$corpus"
  local log=$build_dir/$name.log status crash
  echo "fuzz: $name for ${seconds}s on $(find "$corpus" -type f | wc -l) seeds"
  # The whole output goes to $log; the terminal skips the per-input NEW/REDUCE
  # lines and the recommended dictionary (thousands of lines a minute).
  set +e
  UBSAN_OPTIONS=print_stacktrace=1 "$fuzzer" \
    -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=4096 -seed="$run_seed" -runs="$runs" \
    -artifact_prefix="$artifacts/$name-" -print_final_stats=1 "${flags[@]}" \
    "$corpus" 2>&1 | tee "$log" |
    awk -v name="$name" '/^#[0-9]+[ \t]+(NEW|REDUCE) /{next} /^[ \t]+NEW_FUNC/{next} /Recommended dictionary/{skip=1} !skip{print "[" name "] " $0; fflush()} /End of recommended dictionary/{skip=0}'
  status=${PIPESTATUS[0]}
  set -e
  if [ "$status" -ne 0 ]; then
    crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    echo "fuzz: $name FAILED (exit $status); crashing input: ${crash:-see $log}" >&2
    echo "fuzz: reproduce with $fuzzer ${crash:-<input>}" >&2
    exit 1
  fi
  echo "fuzz: $name: no crash in ${seconds}s or $runs inputs, whichever came first"
}

# Request and response parsing side by side; each exits non-zero on a crash.
fuzz http_request_fuzzer "$seeds"/*/ tests/fuzz/seeds/ tests/fuzz/regressions/ -- -dict="$seeds/http.dict" &
request_pid=$!
fuzz http_response_fuzzer tests/fuzz/response_seeds/ tests/fuzz/response_regressions/ -- -dict="$seeds/http.dict" &
response_pid=$!
failed=0
wait "$request_pid" || failed=1
wait "$response_pid" || failed=1
[ "$failed" -eq 0 ] || exit 1
# The body parsers beside the PROXY protocol header parser.
fuzz body_parsers_fuzzer tests/fuzz/body_seeds/ tests/fuzz/body_regressions/ &
body_pid=$!
fuzz proxy_header_fuzzer tests/fuzz/proxy_seeds/ &
proxy_pid=$!
failed=0
wait "$body_pid" || failed=1
wait "$proxy_pid" || failed=1
[ "$failed" -eq 0 ] || exit 1
# The HTTP/2 glue, twice side by side on seeds one apart (each its own corpus copy).
fuzz http2_connection_fuzzer "$h2_seeds"/*/ tests/fuzz/http2_seeds/ tests/fuzz/http2_regressions/ &
h2_pid=$!
fuzz http2_connection_fuzzer.1 "$h2_seeds"/*/ tests/fuzz/http2_seeds/ tests/fuzz/http2_regressions/ &
h2_again_pid=$!
failed=0
wait "$h2_pid" || failed=1
wait "$h2_again_pid" || failed=1
[ "$failed" -eq 0 ] || exit 1
# WebSocket's frame reader (and permessage-deflate) beside pub/sub's Redis reply reader.
fuzz websocket_frame_fuzzer tests/fuzz/websocket_seeds/ tests/fuzz/websocket_regressions/ &
websocket_pid=$!
fuzz resp_reader_fuzzer tests/fuzz/resp_seeds/ tests/fuzz/resp_regressions/ &
resp_pid=$!
failed=0
wait "$websocket_pid" || failed=1
wait "$resp_pid" || failed=1
[ "$failed" -eq 0 ] || exit 1

#!/usr/bin/env bash
# loadtest/instructions.sh: instructions per request in Tiffany's user space, counted by
# callgrind: the measure of record for a change to the request path, which wall-clock
# benchmarks on a shared two-core machine cannot resolve to a few per cent. Three scenarios,
# one worker answering GET /plaintext ("Hello, World!"), the epoll backend (valgrind 3.19
# stalls on io_uring waits; lib/valgrind_shim.c answers epoll_pwait2, which it does not know):
#   keepalive   HTTP/1.1, one connection, one request at a time (h2load --h1 -c1 -m1)
#   pipelined   HTTP/1.1, one connection, 16 requests in flight (h2load --h1 -c1 -m16)
#   h2c         HTTP/2 by prior knowledge, 4 connections, 16 streams each (h2load -c4 -m16)
# A request's count is (Ir of a run of 2N requests - Ir of a run of N) / N: start-up, the
# connections' set-up and the shutdown cancel out. Each scenario runs ROUNDS such pairs and
# prints their median, and every pair's figure on stderr.
# With -s, each scenario's last pair is also split by step of the request path (parse, head
# checks, routing, handler, serialise, write, scheduler, ...: lib/instruction_steps.py), the
# same subtraction applied to each step's own instructions.
# usage: loadtest/instructions.sh [-b BUILD_DIR] [-n N] [-r ROUNDS] [-s] [SCENARIO...]
#   defaults: -b build, -n 2000, -r 3, all three scenarios, no steps.
# Needs valgrind, h2load (nghttp2-client) and a C compiler; installs none of them.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=build requests=2000 rounds=3 steps=false
while getopts b:n:r:s option; do
  case $option in
    b) build_dir=$OPTARG ;;
    n) requests=$OPTARG ;;
    r) rounds=$OPTARG ;;
    s) steps=true ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-n N] [-r ROUNDS] [-s] [keepalive|pipelined|h2c]..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(keepalive pipelined h2c)
binary=$build_dir/server/tiffany
[ -x "$binary" ] || { echo "instructions: no binary at $binary (build first: scripts/build.sh)" >&2; exit 1; }
for tool in valgrind callgrind_annotate h2load cc curl; do
  command -v "$tool" >/dev/null || { echo "instructions: $tool is not installed" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/tiffany-instructions.XXXXXX")
server_pid=
stop_server() { [ -z "$server_pid" ] || { kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true; }; }
trap 'stop_server; rm -rf "$work"' EXIT
cc -O2 -shared -fPIC -o "$work/shim.so" loadtest/lib/valgrind_shim.c

# Why a random port: nothing else must answer in Tiffany's place.
port=$((20000 + RANDOM % 10000))
cat >"$work/tiffany.json" <<JSON
{ "workers": 1, "backend": "epoll",
  "listeners": [ { "name": "bench", "address": "127.0.0.1:$port", "protocol": "http",
    "routes": [ { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello, World!" } } ] } ] }
JSON

# count SCENARIO N: Tiffany's instructions (Ir, every thread) over a run that answers N requests.
count() {
  local scenario=$1 n=$2 out=$work/callgrind.out tries
  rm -f "$out"
  LD_PRELOAD=$work/shim.so valgrind --tool=callgrind --callgrind-out-file="$out" --trace-children=no \
    "$binary" --config "$work/tiffany.json" >"$work/server.log" 2>&1 &
  server_pid=$!
  for ((tries = 0; tries < 300; tries++)); do
    curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/plaintext" && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "instructions: Tiffany exited" >&2; exit 1; }
    sleep 0.2
  done
  local client=(h2load --h1 -c1 -m1)
  case $scenario in
    keepalive) ;;
    pipelined) client=(h2load --h1 -c1 -m16) ;;
    h2c) client=(h2load -c4 -m16) ;;
    *) echo "instructions: unknown scenario $scenario" >&2; exit 2 ;;
  esac
  "${client[@]}" -n "$n" "http://127.0.0.1:$port/plaintext" >"$work/client.log" 2>&1 ||
    { cat "$work/client.log" >&2; echo "instructions: h2load failed" >&2; exit 1; }
  grep -q "requests: $n total, $n started, $n done, $n succeeded" "$work/client.log" ||
    { cat "$work/client.log" >&2; echo "instructions: not every request succeeded" >&2; exit 1; }
  kill -TERM "$server_pid"
  wait "$server_pid" || true
  server_pid=
  # The readiness probe was one more request in both runs of a pair: it cancels out too.
  sed -n 's/^summary: \([0-9]*\).*/\1/p' "$out"
  cp "$out" "$work/$scenario-$n.out"  # the last of each size, for -s
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "instructions per request (callgrind, user space; $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $build_dir, N=$requests, $rounds rounds)"
for scenario in "${scenarios[@]}"; do
  for ((round = 1; round <= rounds; round++)); do
    once=$(count "$scenario" "$requests")
    twice=$(count "$scenario" $((2 * requests)))
    per=$(((twice - once) / requests))
    echo "  $scenario round $round: $once, $twice: $per" >&2
    echo "$per"
  done | median | { read -r figure; echo "$scenario $figure"; }
  if $steps; then
    python3 loadtest/lib/instruction_steps.py "$requests" "$work/$scenario-$requests.out" \
      "$work/$scenario-$((2 * requests)).out"
  fi
done

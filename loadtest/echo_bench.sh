#!/usr/bin/env bash
# Echo benchmark: Tiffany beside ../shared/bench/limit_server.c (the floor), in
# one run. Each server gets core 0, the echo load client core 1; rounds
# alternate between the servers. Prints messages/s and server CPU microseconds
# per message, and the ratio of Tiffany's CPU per message to the floor's.
# usage: loadtest/echo_bench.sh [SECONDS_PER_ROUND=5] [ROUNDS=3] [CONNECTIONS=50] [SIZE=512]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5} rounds=${2:-3} connections=${3:-50} size=${4:-512}
shared=${TIFFANY_SHARED:-$(cd .. && pwd)/shared}

scripts/setup.sh
build_dir=$(scripts/build.sh | tail -n 1)
gcc -O2 "$shared/bench/limit_server.c" -o "$build_dir/limit_server" -luring

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
port_tiffany=17000 port_limit=17001
cat >"$work/echo.json" <<JSON
{"workers": 1, "listeners": [{"name": "echo", "address": "127.0.0.1:$port_tiffany", "protocol": "echo"}]}
JSON

cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }

# measure NAME PID PORT: one load run; appends "NAME msgs_per_sec us_per_msg p99" to results.
measure() {
  local name=$1 pid=$2 port=$3 before after out messages rate p99
  before=$(cpu_ticks "$pid")
  out=$(taskset -c 1 "$build_dir/loadtest/echo_load" --port "$port" --connections "$connections" \
        --size "$size" --duration "$seconds")
  after=$(cpu_ticks "$pid")
  messages=$(sed -E 's/.*messages=([0-9]+).*/\1/' <<<"$out")
  rate=$(sed -E 's/.*msgs_per_sec=([0-9]+).*/\1/' <<<"$out")
  p99=$(sed -E 's/.*p99=([0-9.]+).*/\1/' <<<"$out")
  echo "$name $rate $(echo "scale=4; ($after-$before)*1000000/$(getconf CLK_TCK)/$messages" | bc) $p99" >>"$work/results"
}

taskset -c 0 "$build_dir/server/tiffany" --config "$work/echo.json" >"$work/tiffany.log" 2>&1 &
tiffany_pid=$!
taskset -c 0 "$build_dir/limit_server" "$port_limit" echo &
limit_pid=$!
sleep 0.5

for ((round = 1; round <= rounds; round++)); do
  measure tiffany "$tiffany_pid" "$port_tiffany"
  measure limit_server "$limit_pid" "$port_limit"
done

echo "echo: $connections connections, $size-byte messages, $rounds rounds of ${seconds}s, server on core 0, client on core 1"
printf '%-14s %12s %16s %10s\n' server msgs/s cpu_us/msg p99_us
awk '{rate[$1]+=$2; cpu[$1]+=$3; p99[$1]+=$4; n[$1]++}
     END {for (s in n) printf "%-14s %12.0f %16.3f %10.1f\n", s, rate[s]/n[s], cpu[s]/n[s], p99[s]/n[s]
          if (n["tiffany"] && n["limit_server"])
            printf "ratio tiffany/limit_server cpu per message: %.3f\n", (cpu["tiffany"]/n["tiffany"])/(cpu["limit_server"]/n["limit_server"])}' \
  "$work/results"

#!/usr/bin/env bash
# Echo benchmark: Tiffany beside ../shared/bench/limit_server.c (the floor), in
# one run. Each server gets core 0, the echo load client core 1; rounds
# alternate between the servers. Prints messages/s and server CPU microseconds
# per message, and the ratio of Tiffany's CPU per message to the floor's.
# usage: loadtest/echo_bench.sh [SECONDS_PER_ROUND=5] [ROUNDS=3] [CONNECTIONS=50] [SIZE=512]
set -euo pipefail
cd "$(dirname "$0")/.."
bench_name=echo_bench
source loadtest/lib/bench.sh
seconds=${1:-5} rounds=${2:-3} connections=${3:-50} size=${4:-512}

bench_prepare limit_server
bench_work_dir
port_tiffany=17000 port_limit=17001
write_tiffany_conf 1 <<JSON
    { "name": "echo", "address": "127.0.0.1:$port_tiffany", "protocol": "echo" }
JSON

# measure NAME PORT: one load run; appends "NAME msgs_per_sec us_per_msg p99" to results.
measure() {
  local name=$1 port=$2
  run_measured "${pids[$name]}" taskset -c 1 "$build_dir/loadtest/echo_load" --port "$port" \
    --connections "$connections" --size "$size" --duration "$seconds"
  echo "$name $(client_field msgs_per_sec "$measured_output")" \
    "$(cpu_us_per "$measured_ticks" "$(client_field messages "$measured_output")")" \
    "$(client_field p99 "$measured_output")" >>"$work/results"
}

start_peer tiffany "$port_tiffany" 0
start_peer limit_server "$port_limit" 0 echo
wait_ready tiffany accepts_tcp "$port_tiffany"
wait_ready limit_server accepts_tcp "$port_limit"

for ((round = 1; round <= rounds; round++)); do
  measure tiffany "$port_tiffany"
  measure limit_server "$port_limit"
done

echo "echo: $connections connections, $size-byte messages, $rounds rounds of ${seconds}s, server on core 0, client on core 1"
printf '%-14s %12s %16s %10s\n' server msgs/s cpu_us/msg p99_us
report 1 '
  END {
    for (k = 1; k <= keys; k++) printf "%-14s %12.0f %16.3f %10.1f\n", order[k], avg(order[k], 1), avg(order[k], 2), avg(order[k], 3)
    if (n["tiffany"] && n["limit_server"])
      printf "ratio tiffany/limit_server cpu per message: %s\n", ratio(avg("tiffany", 2), avg("limit_server", 2))
  }' "$work/results"

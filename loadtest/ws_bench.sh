#!/usr/bin/env bash
# WebSocket benchmark (issue 19): Tiffany's websocket_echo beside Tiffany's own TCP echo
# listener (the floor a WebSocket adds its framing to) and Node's `ws` (an echo server of
# a few lines, one process), in one run, on loopback. Each server gets core 0 (Tiffany one
# worker, serving both listeners), the load client core 1: loadtest/ws_load (upgrade, then
# one masked binary message at a time per connection, the echo read whole) for the
# WebSocket servers, loadtest/echo_load for the TCP echo, with the same connections and
# message size. Rounds alternate between the servers. Prints messages/s, server CPU
# microseconds per message (utime+stime from /proc) and messages per CPU-second, averaged
# over the rounds, and the ratios issue 19 sets goals for: Tiffany WebSocket CPU/message ÷
# Tiffany TCP echo CPU/message (goal <= 1.3), and Tiffany WebSocket messages per CPU-second
# ÷ Node ws's (goal >= 3). Every server must echo correctly (a --verify run) before any
# load; a client error or a server dying stops the run with its log.
# usage: loadtest/ws_bench.sh [-d SECONDS] [-r ROUNDS] [-c CONNECTIONS] [-z SIZE] [-p BASE_PORT] [-o TABLE]
set -euo pipefail

invocation_dir=$PWD
cd "$(dirname "$0")/.."
root_dir=$PWD
bench_name=ws_bench
source loadtest/lib/bench.sh

servers=(tiffany_ws tiffany_echo node_ws)

usage() {
  cat <<EOF
usage: loadtest/ws_bench.sh [-d SECONDS] [-r ROUNDS] [-c CONNECTIONS] [-z SIZE] [-p BASE_PORT] [-o TABLE]
  -d SECONDS      length of one load run, 1..30 (default 5)
  -r ROUNDS       rounds over the three servers, 1..10 (default 3)
  -c CONNECTIONS  connections of the load client, 1..1000 (default 64)
  -z SIZE         message size in bytes, 1..65536 (default 512)
  -p BASE_PORT    servers listen on 127.0.0.1:BASE_PORT+1..+3, 1024..65000 (default 18380)
  -o TABLE        where the table goes (default loadtest/results/ws_bench.txt)
EOF
}

# in_range NAME VALUE LOW HIGH: dies unless VALUE is an integer in [LOW, HIGH].
in_range() {
  if [[ ! $2 =~ ^[1-9][0-9]{0,5}$ ]] || (($2 < $3 || $2 > $4)); then
    die "$1 must be an integer from $3 to $4, got '$2'"
  fi
}

parse_args() {
  seconds=5 rounds=3 connections=64 size=512 base_port=18380 table=$root_dir/loadtest/results/ws_bench.txt
  local option
  while getopts 'd:r:c:z:p:o:h' option; do
    case $option in
      d) seconds=$OPTARG ;;
      r) rounds=$OPTARG ;;
      c) connections=$OPTARG ;;
      z) size=$OPTARG ;;
      p) base_port=$OPTARG ;;
      o) [[ $OPTARG == /* ]] && table=$OPTARG || table=$invocation_dir/$OPTARG ;;
      h) usage && exit 0 ;;
      *) usage >&2 && exit 2 ;;
    esac
  done
  shift $((OPTIND - 1))
  [ $# -eq 0 ] || { usage >&2 && exit 2; }
  in_range seconds "$seconds" 1 30
  in_range rounds "$rounds" 1 10
  in_range connections "$connections" 1 1000
  in_range size "$size" 1 65536
  in_range base_port "$base_port" 1024 65000
}

# port_of SERVER
port_of() {
  case $1 in
    tiffany_ws) echo $((base_port + 1)) ;;
    tiffany_echo) echo $((base_port + 2)) ;;
    node_ws) echo $((base_port + 3)) ;;
  esac
}

# peer_of SERVER: the process that serves it (both of Tiffany's listeners are one process).
peer_of() {
  case $1 in
    tiffany_*) echo tiffany ;;
    *) echo "$1" ;;
  esac
}

# load_command SERVER SECONDS [FLAGS...]: sets the array load_cmd to SERVER's load client on core 1.
load_command() {
  local name=$1 duration=$2 client=ws_load
  [ "$name" != tiffany_echo ] || client=echo_load
  load_cmd=(timeout $((duration + 30)) taskset -c 1 "$build_dir/loadtest/$client" --port "$(port_of "$name")"
    --connections "$connections" --size "$size" --duration "$duration" "${@:3}")
}

write_configs() {
  # Why "ping_interval_ms" past any run: no ping interleaves with the echoes being counted.
  write_tiffany_conf 1 <<JSON
    { "name": "ws", "address": "127.0.0.1:$(port_of tiffany_ws)", "protocol": "http",
      "routes": [ { "method": "GET", "path": "/ws", "handler": "websocket_echo",
                    "with": { "max_message_bytes": 1048576, "ping_interval_ms": 600000 } } ] },
    { "name": "echo", "address": "127.0.0.1:$(port_of tiffany_echo)", "protocol": "echo" }
JSON
  write_node_ws_echo
}

start_servers() {
  start_peer tiffany "$(port_of tiffany_ws)" 0
  start_peer node_ws "$(port_of node_ws)" 0
  wait_ready tiffany accepts_tcp "$(port_of tiffany_ws)"
  wait_ready tiffany accepts_tcp "$(port_of tiffany_echo)"
  wait_ready node_ws accepts_tcp "$(port_of node_ws)"
  check_loopback_only tiffany
  check_loopback_only node_ws
}

# check_and_warm_up: one second per server with --verify (every echo compared with what was
# sent), which also warms Node's JIT before anything is measured.
check_and_warm_up() {
  local name output
  echo "ws_bench: checking each server's echo (--verify, 1 s each)"
  for name in "${servers[@]}"; do
    load_command "$name" 1 --verify
    output=$("${load_cmd[@]}" 2>&1) || die_with_log "$(peer_of "$name")" "$name failed the --verify run: $output"
    (($(client_field messages "$output") > 0)) || die_with_log "$(peer_of "$name")" "$name echoed nothing: $output"
  done
}

# measure SERVER: one load run; appends "server msgs_per_sec cpu_us_per_msg p99_us errors".
measure() {
  local name=$1 peer messages cpu
  peer=$(peer_of "$name")
  load_command "$name" "$seconds"
  run_measured "${pids[$peer]}" "${load_cmd[@]}" || die_with_log "$peer" "the $name run failed: $measured_output"
  alive "$peer" || die_with_log "$peer" "died during the $name run"
  messages=$(client_field messages "$measured_output")
  ((messages > 0)) || die_with_log "$peer" "$name echoed no message: $measured_output"
  cpu=$(cpu_us_per "$measured_ticks" "$messages")
  echo "$name $(client_field msgs_per_sec "$measured_output") $cpu $(client_field p99 "$measured_output")" \
    "$(client_field errors "$measured_output")" >>"$work/results"
  printf '  %-13s %10.0f msgs/s  %8s us/msg cpu\n' "$name" "$(client_field msgs_per_sec "$measured_output")" "$cpu"
}

run_rounds() {
  local round name
  for ((round = 1; round <= rounds; round++)); do
    echo "ws_bench: round $round of $rounds"
    for name in "${servers[@]}"; do measure "$name"; done
  done
}

versions() {
  echo "tiffany: $("$build_dir/server/tiffany" --version 2>&1 | head -n 1)"
  echo "node: $(node --version), ws $(sed -nE 's/^ *"version": *"([^"]+)".*/\1/p' "$work/node_ws/node_modules/ws/package.json")"
  echo "kernel: $(uname -r)"
}

# summarize: the averaged table and the ratio lines, on stdout.
summarize() {
  echo "WebSocket benchmark: $connections connections, $size-byte binary messages echoed one at a time per"
  echo "connection, $rounds rounds of ${seconds}s per server; server on core 0 (one worker / one process),"
  echo "client on core 1 (ws_load; echo_load for the TCP echo); no permessage-deflate offered"
  versions | sed 's/^/  /'
  echo "  CPU used by other processes just before the run: ${background_load}%"
  echo "averages over the rounds; msgs/cpu_s is messages per second of the server's CPU (1e6 / cpu_us/msg)"
  # Columns after the key: 1 msgs/s, 2 cpu_us/msg, 3 p99_us, 4 errors.
  report 1 '
    END {
      printf "%-13s %12s %12s %12s %10s %8s\n", "server", "msgs/s", "cpu_us/msg", "msgs/cpu_s", "p99_us", "errors"
      for (k = 1; k <= keys; k++) {
        key = order[k]
        printf "%-13s %12.0f %12.3f %12.0f %10.1f %8d\n", key, avg(key, 1), avg(key, 2),
               (avg(key, 2) > 0 ? 1000000 / avg(key, 2) : 0), avg(key, 3), total(key, 4)
      }
      print ""
      ratio_line("tiffany_ws cpu/msg / tiffany_echo cpu/msg (goal <= 1.3):", avg("tiffany_ws", 2), avg("tiffany_echo", 2))
      ratio_line("tiffany_ws msgs per cpu-second / node_ws (goal >= 3):", avg("node_ws", 2), avg("tiffany_ws", 2))
      ratio_line("tiffany_ws msgs/s / node_ws msgs/s:", avg("tiffany_ws", 1), avg("node_ws", 1))
    }' "$work/results"
}

main() {
  parse_args "$@"
  bench_prepare peers node  # peers: bc, curl and ss (iproute2) come with them
  for client in ws_load echo_load; do
    [ -x "$build_dir/loadtest/$client" ] || die "no $client in $build_dir/loadtest (build the loadtest targets)"
  done
  bench_work_dir
  write_configs
  measure_background_load
  start_servers
  check_and_warm_up
  run_rounds
  mkdir -p "$(dirname "$table")"
  summarize | tee "$table"
  echo "ws_bench: table $table"
}

main "$@"

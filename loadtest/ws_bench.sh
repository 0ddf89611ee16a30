#!/usr/bin/env bash
# WebSocket benchmark (issue 19) in two modes, each one run on loopback: each server gets core 0
# (Tiffany one worker), the load client core 1, and rounds alternate between the servers.
# -m echo (the default): Tiffany's websocket_echo beside Tiffany's own TCP echo listener (the
# floor a WebSocket adds its framing to) and Node's `ws` (an echo server of a few lines, one
# process); loadtest/ws_load (upgrade, then one masked binary message at a time per connection,
# the echo read whole) for the WebSocket servers, loadtest/echo_load for the TCP echo, with the
# same connections and message size. Prints messages/s, server CPU microseconds per message
# (utime+stime from /proc) and messages per CPU-second, averaged over the rounds, and the ratios
# issue 19 sets goals for: Tiffany WebSocket CPU/message ÷ Tiffany TCP echo CPU/message (goal
# <= 1.3), and Tiffany WebSocket messages per CPU-second ÷ Node ws's (goal >= 3).
# -m broadcast: Tiffany's pubsub beside Node's `ws` running the same small JSON protocol (one
# process); loadtest/ws_broadcast_load: -c subscribers on one channel and one publisher keeping
# -w messages in flight, every delivery checked. Prints deliveries/s (summed over the
# subscribers), server CPU microseconds per delivery (over the publishing alone) and deliveries
# per CPU-second, and the ratio Tiffany ÷ Node deliveries per CPU-second.
# Every server must pass a one-second checked run before any load (ws_load and echo_load with
# --verify; ws_broadcast_load always checks); a client error or a server dying stops the run
# with its log.
# usage: loadtest/ws_bench.sh [-m echo|broadcast] [-d SECONDS] [-r ROUNDS] [-c CONNECTIONS] [-z SIZE]
#                             [-w WINDOW] [-p BASE_PORT] [-o TABLE]
set -euo pipefail

invocation_dir=$PWD
cd "$(dirname "$0")/.."
root_dir=$PWD
bench_name=ws_bench
source loadtest/lib/bench.sh

usage() {
  cat <<EOF
usage: loadtest/ws_bench.sh [-m echo|broadcast] [-d SECONDS] [-r ROUNDS] [-c CONNECTIONS] [-z SIZE]
                            [-w WINDOW] [-p BASE_PORT] [-o TABLE]
  -m MODE         echo (default): websocket_echo, Tiffany's TCP echo and Node ws, echoing;
                  broadcast: Tiffany's pubsub and a Node ws pub/sub server, one publisher
  -d SECONDS      length of one load run, 1..30 (default 5)
  -r ROUNDS       rounds over the servers, 1..10 (default 3)
  -c CONNECTIONS  echo: the load client's connections, 1..1000 (default 64);
                  broadcast: subscribers, 1..10000 (default 1000)
  -z SIZE         message size in bytes (broadcast: the data's), 1..65536, broadcast from 10 (default 512)
  -w WINDOW       broadcast: messages in flight, 1..200 (default 16; pubsub drops a
                  subscriber with 256 undelivered)
  -p BASE_PORT    servers listen on 127.0.0.1:BASE_PORT+1..+5, 1024..65000 (default 18380)
  -o TABLE        where the table goes (default loadtest/results/ws_bench.txt, with
                  -m broadcast ws_bench_broadcast.txt)
EOF
}

parse_args() {
  mode=echo seconds=5 rounds=3 connections='' size=512 window=16 base_port=18380 table=''
  parse_options 'm=mode d=seconds r=rounds c=connections z=size w=window p=base_port o=/table' "$@"
  in_range seconds "$seconds" 1 30
  in_range rounds "$rounds" 1 10
  in_range window "$window" 1 200
  in_range base_port "$base_port" 1024 65000
  case $mode in
    echo)
      servers=(tiffany_ws tiffany_echo node_ws)
      in_range connections "${connections:=64}" 1 1000
      in_range size "$size" 1 65536
      table=${table:-$root_dir/loadtest/results/ws_bench.txt}
      ;;
    broadcast)
      servers=(tiffany_pubsub node_ws_pubsub)
      in_range subscribers "${connections:=1000}" 1 10000
      in_range size "$size" 10 65536
      table=${table:-$root_dir/loadtest/results/ws_bench_broadcast.txt}
      ;;
    *) die "-m must be echo or broadcast, got '$mode'" ;;
  esac
}

# port_of SERVER
port_of() {
  case $1 in
    tiffany_ws) echo $((base_port + 1)) ;;
    tiffany_echo) echo $((base_port + 2)) ;;
    node_ws) echo $((base_port + 3)) ;;
    tiffany_pubsub) echo $((base_port + 4)) ;;
    node_ws_pubsub) echo $((base_port + 5)) ;;
  esac
}

# peer_of SERVER: the process that serves it (Tiffany's listeners are one process).
peer_of() {
  case $1 in
    tiffany_*) echo tiffany ;;
    *) echo "$1" ;;
  esac
}

# load_command SERVER SECONDS [FLAGS...]: sets the array load_cmd to SERVER's load client on core 1.
load_command() {
  local name=$1 duration=$2 client=(ws_load)
  case $name in
    tiffany_echo) client=(echo_load) ;;
    *pubsub) client=(ws_broadcast_load --path /pubsub --window "$window" --server-pid "${pids[$(peer_of "$name")]}") ;;
  esac
  load_cmd=(timeout $((duration + 30)) taskset -c 1 "$build_dir/loadtest/${client[0]}" "${client[@]:1}"
    --port "$(port_of "$name")" --connections "$connections" --size "$size" --duration "$duration" "${@:3}")
}

# What the load client's line calls the work done and its rate, per mode.
count_field() { if [ "$mode" = echo ]; then echo messages; else echo deliveries; fi; }
rate_field() { if [ "$mode" = echo ]; then echo msgs_per_sec; else echo deliveries_per_sec; fi; }

write_configs() {
  # Why "ping_interval_ms" past any run: no ping interleaves with the messages being counted.
  if [ "$mode" = echo ]; then
    write_tiffany_conf 1 <<JSON
    { "name": "ws", "address": "127.0.0.1:$(port_of tiffany_ws)", "protocol": "http",
      "routes": [ { "method": "GET", "path": "/ws", "handler": "websocket_echo",
                    "with": { "max_message_bytes": 1048576, "ping_interval_ms": 600000 } } ] },
    { "name": "echo", "address": "127.0.0.1:$(port_of tiffany_echo)", "protocol": "echo" }
JSON
    write_node_ws_echo
  else
    write_tiffany_conf 1 <<JSON
    { "name": "pubsub", "address": "127.0.0.1:$(port_of tiffany_pubsub)", "protocol": "http",
      "routes": [ { "method": "GET", "path": "/pubsub", "handler": "pubsub",
                    "with": { "ping_interval_ms": 600000 } } ] }
JSON
    write_node_ws_pubsub
  fi
}

start_servers() {
  local name peer
  if [ "$mode" = broadcast ]; then
    # Why: each side holds a socket per subscriber (the hard limit here is 20000).
    (($(ulimit -n) >= connections + 256)) || ulimit -n $((connections + 256)) ||
      die "cannot raise the open-file limit to $((connections + 256)) (ulimit -Hn: $(ulimit -Hn))"
  fi
  for name in "${servers[@]}"; do
    peer=$(peer_of "$name")
    [ -n "${pids[$peer]:-}" ] || start_peer "$peer" "$(port_of "$name")" 0
  done
  for name in "${servers[@]}"; do wait_ready "$(peer_of "$name")" accepts_tcp "$(port_of "$name")"; done
  for peer in "${!pids[@]}"; do check_loopback_only "$peer"; done
}

# check_and_warm_up: one checked second per server (echo: --verify, every echo compared with
# what was sent; broadcast: every delivery is checked anyway), which also warms Node's JIT
# before anything is measured.
check_and_warm_up() {
  local name output verify=()
  [ "$mode" = broadcast ] || verify=(--verify)
  echo "ws_bench: checking each server ($mode, 1 s each)"
  for name in "${servers[@]}"; do
    load_command "$name" 1 "${verify[@]}"
    output=$("${load_cmd[@]}" 2>&1) || die_with_log "$(peer_of "$name")" "$name failed the checked run: $output"
    (($(client_field "$(count_field)" "$output") > 0)) || die_with_log "$(peer_of "$name")" "$name delivered nothing: $output"
  done
}

# measure SERVER: one load run; appends "server rate cpu_us_per_unit third errors", where the
# unit is a message (echo) or a delivery (broadcast) and third is the p99 in microseconds
# (echo) or messages published per second (broadcast). Broadcast CPU is the server's over the
# publishing alone (ws_broadcast_load reads it), without the subscribers' upgrades and closes.
measure() {
  local name=$1 peer count cpu third
  peer=$(peer_of "$name")
  load_command "$name" "$seconds"
  run_measured "${pids[$peer]}" "${load_cmd[@]}" || die_with_log "$peer" "the $name run failed: $measured_output"
  alive "$peer" || die_with_log "$peer" "died during the $name run"
  count=$(client_field "$(count_field)" "$measured_output")
  ((count > 0)) || die_with_log "$peer" "$name delivered no message: $measured_output"
  if [ "$mode" = echo ]; then
    cpu=$(cpu_us_per "$measured_ticks" "$count")
    third=$(client_field p99 "$measured_output")
  else
    cpu=$(echo "scale=4; $(client_field server_cpu_us "$measured_output") / $count" | bc)
    third=$(echo "scale=1; $(client_field published "$measured_output") / $(client_field duration "$measured_output")" | bc)
  fi
  echo "$name $(client_field "$(rate_field)" "$measured_output") $cpu $third" \
    "$(client_field errors "$measured_output")" >>"$work/results"
  printf '  %-15s %10.0f %s  %8s us cpu each\n' "$name" "$(client_field "$(rate_field)" "$measured_output")" \
    "$(rate_field)" "$cpu"
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
  if [ "$mode" = echo ]; then
    echo "WebSocket benchmark: $connections connections, $size-byte binary messages echoed one at a time per"
    echo "connection, $rounds rounds of ${seconds}s per server; server on core 0 (one worker / one process),"
    echo "client on core 1 (ws_load; echo_load for the TCP echo); no permessage-deflate offered"
  else
    echo "WebSocket broadcast benchmark: $connections subscribers on one channel, one publisher keeping"
    echo "$window messages in flight, data a $size-byte JSON string, $rounds rounds of ${seconds}s per server;"
    echo "server on core 0 (one worker / one process), client on core 1 (ws_broadcast_load, every delivery"
    echo "checked); no permessage-deflate offered"
  fi
  versions | sed 's/^/  /'
  echo "  CPU used by other processes just before the run: ${background_load}%"
  # unit: what is counted (plural), each: one of them, in the column names.
  local unit=msgs each=msg rate=msgs/s third=p99_us ours=tiffany_ws theirs=node_ws goal=" (goal >= 3)"
  if [ "$mode" = broadcast ]; then
    unit=deliveries each=deliv rate=deliveries/s third=published/s ours=tiffany_pubsub theirs=node_ws_pubsub goal=""
  fi
  echo "averages over the rounds; ${unit:0:5}/cpu_s is $unit per second of the server's CPU (1e6 / cpu_us/$each)"
  # Columns after the key: 1 rate, 2 cpu_us per unit, 3 p99_us (echo) or published/s (broadcast), 4 errors.
  report 1 '
    END {
      printf "%-15s %12s %12s %12s %12s %8s\n", "server", rate, "cpu_us/" each, substr(unit, 1, 5) "/cpu_s", third, "errors"
      for (k = 1; k <= keys; k++) {
        key = order[k]
        printf "%-15s %12.0f %12.3f %12.0f %12.1f %8d\n", key, avg(key, 1), avg(key, 2),
               (avg(key, 2) > 0 ? 1000000 / avg(key, 2) : 0), avg(key, 3), total(key, 4)
      }
      print ""
      if (n["tiffany_echo"])
        ratio_line("tiffany_ws cpu/msg / tiffany_echo cpu/msg (goal <= 1.3):", avg("tiffany_ws", 2), avg("tiffany_echo", 2))
      ratio_line(ours " " unit " per cpu-second / " theirs goal ":", avg(theirs, 2), avg(ours, 2))
      ratio_line(ours " " rate " / " theirs " " rate ":", avg(ours, 1), avg(theirs, 1))
    }' "$work/results" unit="$unit" each="$each" rate="$rate" third="$third" ours="$ours" theirs="$theirs" goal="$goal"
}

main() {
  parse_args "$@"
  bench_prepare peers node  # peers: bc, curl and ss (iproute2) come with them
  for client in ws_load echo_load ws_broadcast_load; do
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

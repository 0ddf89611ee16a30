#!/usr/bin/env bash
# Scale-out benchmark: HAProxy in front of three Tiffany instances (health checks on /health,
# PROXY protocol v2, retries on another server), under wrk, through four phases:
#   steady   nothing happens (the baseline for latency);
#   reload   each instance in turn reloads its config (SIGHUP);
#   upgrade  a new binary is installed and each instance in turn hands over to it (SIGUSR2);
#   kill     one instance is killed with SIGKILL.
# Prints, per phase, requests, req/s, mean and p99 latency and failed requests (wrk's socket
# errors and non-2xx answers), the p99 of the reload and upgrade phases over the steady one,
# and how long HAProxy took to mark the killed instance down. The reload and upgrade phases
# must fail no request; the script exits 1 if they do.
# usage: loadtest/cluster_bench.sh [-d SECONDS] [-c CONNECTIONS] [-p BASE_PORT]
set -euo pipefail

cd "$(dirname "$0")/.."
bench_name=cluster_bench
source loadtest/lib/bench.sh

seconds=8
connections=64
base_port=18380
check_interval_ms=200
fall=2

usage() {
  cat <<EOF
usage: loadtest/cluster_bench.sh [-d SECONDS] [-c CONNECTIONS] [-p BASE_PORT]
  -d SECONDS      length of each phase's wrk run, 4..60 (default 8)
  -c CONNECTIONS  wrk connections, 1..1024 (default 64)
  -p BASE_PORT    HAProxy listens on BASE_PORT, its stats on +1, the instances on +2..+4 (default 18380)
EOF
}

while getopts "d:c:p:h" option; do
  case $option in
    d) seconds=$OPTARG ;;
    c) connections=$OPTARG ;;
    p) base_port=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
[[ $seconds =~ ^[0-9]+$ ]] && ((seconds >= 4 && seconds <= 60)) || die "-d must be 4..60, got '$seconds'"
[[ $connections =~ ^[0-9]+$ ]] && ((connections >= 1 && connections <= 1024)) || die "-c must be 1..1024"
[[ $base_port =~ ^[0-9]+$ ]] && ((base_port >= 1024 && base_port <= 65000)) || die "-p must be 1024..65000"

bench_prepare peers
bench_work_dir
instances=(1 2 3)
stats_port=$((base_port + 1))

# Each instance runs a copy of the binary, so that installing a new one is a rename over it.
cp "$build_dir/server/tiffany" "$work/tiffany"
instance_port() { echo $((base_port + 1 + $1)); }
pid_of() { cat "$work/t$1.pid"; }
stop_instances() {
  local i
  for i in "${instances[@]}"; do [ ! -s "$work/t$i.pid" ] || kill "$(pid_of "$i")" 2>/dev/null || true; done
}
trap 'stop_instances; bench_cleanup' EXIT

for i in "${instances[@]}"; do
  port=$(instance_port "$i")
  check_port_free "$port"
  cat >"$work/t$i.json" <<JSON
{ "workers": 1, "pid_file": "t$i.pid",
  "listeners": [ { "name": "web", "address": "127.0.0.1:$port", "protocol": "http",
    "proxy_protocol": { "trusted": ["127.0.0.1/32"] },
    "routes": [ { "method": "GET", "path": "/health", "handler": "health" },
                { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello from $i" } } ] } ] }
JSON
  (cd "$work" && exec taskset -c 0 ./tiffany --config "t$i.json" >"$work/t$i.log" 2>&1) &
done
for i in "${instances[@]}"; do
  for ((tries = 0; tries < 100; tries++)); do
    [ -s "$work/t$i.pid" ] && answers_http "http://127.0.0.1:$(instance_port "$i")/health" --haproxy-protocol && break
    sleep 0.1
  done
  [ -s "$work/t$i.pid" ] || { tail "$work/t$i.log" >&2; die "instance $i did not start"; }
done

check_port_free "$base_port"
{
  cat <<CONF
global
  nbthread 1
  maxconn 8192
defaults
  mode http
  option http-keep-alive
  timeout connect 5s
  timeout client 60s
  timeout server 60s
  retries 3
  option redispatch 1
  retry-on all-retryable-errors
frontend front
  bind 127.0.0.1:$base_port
  default_backend tiffany
listen stats
  bind 127.0.0.1:$stats_port
  stats enable
  stats uri /stats
backend tiffany
  option httpchk
  http-check send meth GET uri /health ver HTTP/1.1 hdr Host t
CONF
  for i in "${instances[@]}"; do
    echo "  server t$i 127.0.0.1:$(instance_port "$i") send-proxy-v2 check inter $check_interval_ms fall $fall rise 1"
  done
} >"$work/haproxy.conf"
start_peer haproxy "$base_port" 1
wait_ready haproxy answers_http "http://127.0.0.1:$base_port/plaintext"

# status_of N: HAProxy's view of instance N (UP, DOWN, ...), from its CSV stats.
status_of() { curl -s "http://127.0.0.1:$stats_port/stats;csv" | awk -F, -v name="t$1" '$1 == "tiffany" && $2 == name {print $18}'; }

# phase NAME ACTION: wrk for the phase's length while ACTION runs beside it; appends a row.
phase() {
  local name=$1 action=$2 result
  "$action" &
  local action_pid=$!
  result=$(taskset -c 1 wrk -t1 -c "$connections" -d "${seconds}s" --latency "http://127.0.0.1:$base_port/plaintext" |
    parse_wrk)
  wait "$action_pid"
  echo "$name $result" >>"$work/results"
}

# Each action spreads its steps over the phase: a step every SECONDS/4.
step_pause() { sleep "$(echo "scale=2; $seconds / 4" | bc)"; }
nothing() { :; }
rolling_reload() {
  local i
  for i in "${instances[@]}"; do step_pause; kill -HUP "$(pid_of "$i")"; done
}
rolling_upgrade() {
  local i before
  cp "$build_dir/server/tiffany" "$work/tiffany.new" && mv "$work/tiffany.new" "$work/tiffany"
  for i in "${instances[@]}"; do
    step_pause
    before=$(pid_of "$i")
    kill -USR2 "$before"
    for ((tries = 0; tries < 300; tries++)); do  # the new process writes its pid once it serves
      [ "$(pid_of "$i")" = "$before" ] || break
      sleep 0.05
    done
    [ "$(pid_of "$i")" != "$before" ] || die "instance $i did not upgrade within 15 s: $(tail -n 3 "$work/t$i.log")"
  done
}
kill_one() {
  step_pause
  local killed_at
  killed_at=$(date +%s%N)
  kill -9 "$(pid_of 1)"
  for ((tries = 0; tries < 1000; tries++)); do  # 10 s at most
    [ "$(status_of 1)" != DOWN ] || break
    sleep 0.01
  done
  echo $((($(date +%s%N) - killed_at) / 1000000)) >"$work/down_ms"
}

phase steady nothing
phase reload rolling_reload
phase upgrade rolling_upgrade
phase kill kill_one

echo "$bench_name: HAProxy in front of 3 Tiffanys (1 worker each, core 0), wrk -t1 -c $connections, ${seconds} s per phase"
printf '%-8s %10s %10s %10s %10s %8s\n' phase requests req/s mean_us p99_us failed
awk '{printf "%-8s %10d %10.0f %10.1f %10.1f %8d\n", $1, $2, $3, $4, $5, $6}' "$work/results"
report 1 'END {
  ratio_line("p99 while reloading / steady", avg("reload", 4), avg("steady", 4))
  ratio_line("p99 while upgrading / steady", avg("upgrade", 4), avg("steady", 4))
}' "$work/results"
echo "killed instance marked down by HAProxy after $(cat "$work/down_ms") ms (checks every $check_interval_ms ms, fall $fall)"
failed=$(awk '$1 == "reload" || $1 == "upgrade" {n += $6} END {print n + 0}' "$work/results")
((failed == 0)) || die "$failed requests failed during the rolling reload or upgrade"

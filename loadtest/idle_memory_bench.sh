#!/usr/bin/env bash
# Idle keep-alive memory: Tiffany beside nginx and h2o, in one run, on
# loopback. Each server (one worker) gets a warm-up (100 connections, one
# request each, closed), then loadtest/idle_clients opens N connections, one
# request each, and holds them idle. Prints each server's RSS growth per idle
# connection: in total (RSS with N open minus RSS after the warm-up, over N),
# and at the margin (between N/3 and N open, which leaves out one-off costs
# such as pools that the first connections fill).
# usage: loadtest/idle_memory_bench.sh [-n CONNECTIONS] [-p BASE_PORT]
set -euo pipefail

cd "$(dirname "$0")/.."
root_dir=$PWD
servers=(tiffany nginx h2o)

usage() {
  cat <<USAGE
usage: loadtest/idle_memory_bench.sh [-n CONNECTIONS] [-p BASE_PORT]
  -n CONNECTIONS  idle connections to open, 300..15000 (default 9000; the fd limit here is 20000)
  -p BASE_PORT    servers listen on 127.0.0.1:BASE_PORT+1..+3, 1024..65000 (default 18280)
USAGE
}

die() {
  echo "idle_memory_bench: $*" >&2
  exit 1
}

count=9000 base_port=18280
while getopts 'n:p:h' option; do
  case $option in
    n) count=$OPTARG ;;
    p) base_port=$OPTARG ;;
    h) usage && exit 0 ;;
    *) usage >&2 && exit 2 ;;
  esac
done
[[ $count =~ ^[0-9]+$ ]] && ((count >= 300 && count <= 15000)) || die "CONNECTIONS must be 300..15000, got '$count'"
[[ $base_port =~ ^[0-9]+$ ]] && ((base_port >= 1024 && base_port <= 65000)) || die "BASE_PORT must be 1024..65000"
third=$((count / 3))

scripts/setup.sh
loadtest/setup_peers.sh
build_dir=$root_dir/$(scripts/build.sh | tail -n 1)
ulimit -n 20000 || die "cannot raise the open-file limit to 20000 (the client holds $count sockets)"

work=$(mktemp -d -t tiffany-idle-bench.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/nginx-tmp"
printf 'Hello, World!' >"$work/plaintext.txt"

port_of() {
  case $1 in
    tiffany) echo $((base_port + 1)) ;;
    nginx) echo $((base_port + 2)) ;;
    h2o) echo $((base_port + 3)) ;;
  esac
}

# Every server: one worker, keep-alive for 120 s, room for 20,000 connections.
cat >"$work/tiffany.json" <<JSON
{
  "workers": 1,
  "max_connections": 20000,
  "listeners": [
    {
      "name": "bench",
      "address": "127.0.0.1:$(port_of tiffany)",
      "protocol": "http",
      "timeouts": { "keepalive_ms": 120000 },
      "routes": [ { "method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!" } ]
    }
  ]
}
JSON
cat >"$work/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile 20000;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 20000; }
http {
  access_log off;
  keepalive_timeout 120s;
  keepalive_requests 1000000;
  client_body_temp_path $work/nginx-tmp/body;
  proxy_temp_path $work/nginx-tmp/proxy;
  fastcgi_temp_path $work/nginx-tmp/fastcgi;
  uwsgi_temp_path $work/nginx-tmp/uwsgi;
  scgi_temp_path $work/nginx-tmp/scgi;
  server {
    listen 127.0.0.1:$(port_of nginx) backlog=4096;
    location = /plaintext { default_type text/plain; return 200 "Hello, World!"; }
  }
}
CONF
{
  [ "$(id -u)" -ne 0 ] || echo "user: root"  # as root without it, h2o drops to nobody, who cannot read the temp dir
  cat <<CONF
num-threads: 1
max-connections: 20000
http1-request-timeout: 120
pid-file: $work/h2o.pid
error-log: $work/h2o-error.log
listen:
  host: 127.0.0.1
  port: $(port_of h2o)
hosts:
  default:
    paths:
      /plaintext:
        file.file: $work/plaintext.txt
CONF
} >"$work/h2o.conf"

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# measure NAME COMMAND...: starts the server on core 0, measures, stops it.
measure() {
  local name=$1 port pid tries rss_warm rss_third rss_all line
  shift
  port=$(port_of "$name")
  [ -z "$(ss -Hltn "sport = :$port")" ] || die "port $port is in use; pick others with -p"
  taskset -c 0 "$@" >"$work/$name.log" 2>&1 &
  pid=$!
  for ((tries = 0; tries < 100; tries++)); do
    curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/plaintext" && break
    kill -0 "$pid" 2>/dev/null || die "$name exited during start-up: $(tail -n 5 "$work/$name.log")"
    sleep 0.1
  done
  # Warm-up: 100 connections with one request each, then closed.
  taskset -c 1 "$build_dir/loadtest/idle_clients" --port "$port" --counts 100 </dev/null >"$work/warmup.out" ||
    die "$name: warm-up failed: $(cat "$work/warmup.out")"
  sleep 0.5
  rss_warm=$(rss_kib "$pid")
  coproc CLIENT { taskset -c 1 "$build_dir/loadtest/idle_clients" --port "$port" --counts "$third,$count"; }
  read -r line <&"${CLIENT[0]}" || die "$name: the client ended early"
  [ "$line" = "open $third" ] || die "$name: client said: $line"
  sleep 1
  rss_third=$(rss_kib "$pid")
  echo >&"${CLIENT[1]}"
  read -r line <&"${CLIENT[0]}" || die "$name: the client ended early"
  [ "$line" = "open $count" ] || die "$name: client said: $line"
  sleep 1
  rss_all=$(rss_kib "$pid")
  kill -0 "$pid" 2>/dev/null || die "$name died while holding idle connections"
  exec {CLIENT[1]}>&-
  wait "$CLIENT_PID" 2>/dev/null || true
  kill "$pid" && wait "$pid" 2>/dev/null || true
  printf '%-8s %10d %10d %10d %14.0f %14.0f\n' "$name" "$rss_warm" "$rss_third" "$rss_all" \
    "$(echo "($rss_all - $rss_warm) * 1024 / $count" | bc -l)" \
    "$(echo "($rss_all - $rss_third) * 1024 / ($count - $third)" | bc -l)" >>"$work/results"
}

echo "idle_memory_bench: $count idle keep-alive connections per server, one worker each"
measure tiffany "$build_dir/server/tiffany" --config "$work/tiffany.json"
measure nginx nginx -p "$work" -c "$work/nginx.conf" -e "$work/nginx-error.log"
measure h2o h2o --mode worker --conf "$work/h2o.conf"
printf '%-8s %10s %10s %10s %14s %14s\n' server "RSS warm" "RSS N/3" "RSS N" "B/conn total" "B/conn margin"
printf '%-8s %10s %10s %10s %14s %14s\n' "" KiB KiB KiB "" ""
cat "$work/results"

#!/usr/bin/env bash
# Idle keep-alive memory: Tiffany beside nginx and h2o, in one run, on
# loopback. Each server (one worker) gets a warm-up (100 connections, one
# request each, closed), then loadtest/idle_clients opens N connections, one
# request each, and holds them idle. Prints each server's RSS growth per idle
# connection: in total (RSS with N open minus RSS after the warm-up, over N),
# and at the margin (between N/3 and N open, which leaves out one-off costs
# such as pools that the first connections fill). Modes: http (Tiffany,
# nginx, h2o), https (a full TLS handshake and one request each) and silent
# (TCP connections to the TLS port that never send a byte), both beside nginx,
# websocket (an upgrade to a WebSocket each, websocket_echo, then idle),
# beside Node's ws, and h2c (HTTP/2 by prior knowledge, one GET each, then idle:
# an idle HTTP/2 connection), beside nginx and h2o.
# usage: loadtest/idle_memory_bench.sh [-n CONNECTIONS] [-p BASE_PORT] [-m MODES]
set -euo pipefail

cd "$(dirname "$0")/.."
bench_name=idle_memory_bench
source loadtest/lib/bench.sh

usage() {
  cat <<USAGE
usage: loadtest/idle_memory_bench.sh [-n CONNECTIONS] [-p BASE_PORT] [-m MODES]
  -n CONNECTIONS  idle connections to open, 300..15000 (default 9000; the fd limit here is 20000)
  -p BASE_PORT    servers listen on 127.0.0.1:BASE_PORT+1..+4 (HTTP, WebSocket), +11..+12 (HTTPS) and +21..+22 (h2c), 1024..65000 (default 18280)
  -m MODES        comma-separated: http, https, silent, websocket, h2c (default http,https,silent,websocket)
USAGE
}

count=9000 base_port=18280 modes=http,https,silent,websocket
while getopts 'n:p:m:h' option; do
  case $option in
    n) count=$OPTARG ;;
    p) base_port=$OPTARG ;;
    m) modes=$OPTARG ;;
    h) usage && exit 0 ;;
    *) usage >&2 && exit 2 ;;
  esac
done
if [[ ! $count =~ ^[0-9]+$ ]] || ((count < 300 || count > 15000)); then die "CONNECTIONS must be 300..15000, got '$count'"; fi
if [[ ! $base_port =~ ^[0-9]+$ ]] || ((base_port < 1024 || base_port > 65000)); then die "BASE_PORT must be 1024..65000"; fi
IFS=, read -r -a mode_list <<<"$modes"
for mode in "${mode_list[@]}"; do
  [[ $mode =~ ^(http|https|silent|websocket|h2c)$ ]] || die "unknown mode '$mode'; expected http, https, silent, websocket or h2c"
done
wants_websocket() { [[ ,$modes, == *,websocket,* ]]; }
third=$((count / 3))

if wants_websocket; then bench_prepare peers node; else bench_prepare peers; fi
ulimit -n 20000 || die "cannot raise the open-file limit to 20000 (the client holds $count sockets)"

bench_work_dir
printf 'Hello, World!' >"$work/plaintext.txt"
make_cert ec  # Why P-256: a full handshake per connection, and the client's core must keep up.

# port_of SERVER MODE
port_of() {
  local offset=0
  [[ ! ${2:-http} =~ ^(https|silent)$ ]] || offset=10
  # Why h2o's own port for h2c: it speaks HTTP/2 by prior knowledge on any cleartext listener.
  [[ ${2:-http} != h2c || $1 == h2o ]] || offset=20
  case $1 in
    tiffany) echo $((base_port + offset + 1)) ;;
    nginx) echo $((base_port + offset + 2)) ;;
    h2o) echo $((base_port + offset + 3)) ;;
    node_ws) echo $((base_port + 4)) ;;
  esac
}

# Every server: one worker, keep-alive for 120 s, room for 20,000 connections;
# a TLS handshake may take 120 s too, so silent connections stay open. A WebSocket
# gets its first ping after 300 s: the idle client answers none, and the run is over by then.
write_tiffany_conf 1 '"max_connections": 20000,' <<JSON
    {
      "name": "bench",
      "address": "127.0.0.1:$(port_of tiffany)",
      "protocol": "http",
      "timeouts": { "keepalive_ms": 120000 },
      "routes": [
        { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello, World!" } },
        { "method": "GET", "path": "/ws", "handler": "websocket_echo", "with": { "ping_interval_ms": 300000 } }
      ]
    },
    {
      "name": "bench-tls",
      "address": "127.0.0.1:$(port_of tiffany https)",
      "protocol": "http",
      "timeouts": { "keepalive_ms": 120000 },
      "tls": { "cert": "$work/cert.pem", "key": "$work/key.pem", "handshake_timeout_ms": 120000 },
      "routes": [ { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello, World!" } } ]
    },
    {
      "name": "bench-h2c",
      "address": "127.0.0.1:$(port_of tiffany h2c)",
      "protocol": "http",
      "http2": { "enabled": true },
      "timeouts": { "keepalive_ms": 120000 },
      "routes": [ { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello, World!" } } ]
    }
JSON
write_nginx_conf 1 20000 "worker_rlimit_nofile 20000;" <<CONF
  keepalive_timeout 120s;
  keepalive_requests 1000000;
  client_header_timeout 120s;  # also the TLS handshake's
  server {
    listen 127.0.0.1:$(port_of nginx) backlog=4096;
    location = /plaintext { default_type text/plain; return 200 "Hello, World!"; }
  }
  server {
    listen 127.0.0.1:$(port_of nginx https) ssl backlog=4096;
    ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem;
    location = /plaintext { default_type text/plain; return 200 "Hello, World!"; }
  }
  server {
    listen 127.0.0.1:$(port_of nginx h2c) http2 backlog=4096;  # nginx 1.22: h2c by prior knowledge
    location = /plaintext { default_type text/plain; return 200 "Hello, World!"; }
  }
CONF
write_h2o_conf 1 "$(port_of h2o)" $'max-connections: 20000\nhttp1-request-timeout: 120' <<CONF
      /plaintext:
        file.file: $work/plaintext.txt
CONF
! wants_websocket || write_node_ws_echo

# measure MODE NAME: starts the server on core 0, measures, stops it.
measure() {
  local mode=$1 name=$2 port pid rss_warm rss_third rss_all line client_input path=/plaintext
  port=$(port_of "$name" "$mode")
  [ "$mode" != websocket ] || path=/ws
  start_peer "$name" "$port" 0
  pid=${pids[$name]}
  wait_ready "$name" answers_http "http://127.0.0.1:$(port_of "$name")/plaintext"
  # Warm-up: 100 connections with one request each (silent: none), then closed.
  taskset -c 1 "$build_dir/loadtest/idle_clients" --port "$port" --counts 100 --mode "$mode" --path "$path" </dev/null \
    >"$work/warmup.out" || die "$name: warm-up failed: $(cat "$work/warmup.out")"
  sleep 0.5
  rss_warm=$(rss_kib "$pid")
  coproc CLIENT {
    taskset -c 1 "$build_dir/loadtest/idle_clients" --port "$port" --counts "$third,$count" --mode "$mode" --path "$path"
  }
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
  client_input=${CLIENT[1]}
  exec {client_input}>&-  # the client's standard input ends: it closes its connections and exits
  wait "$CLIENT_PID" 2>/dev/null || true
  stop_peer "$name"
  printf '%-9s %-8s %10d %10d %10d %14.0f %14.0f\n' "$mode" "$name" "$rss_warm" "$rss_third" "$rss_all" \
    "$(echo "($rss_all - $rss_warm) * 1024 / $count" | bc -l)" \
    "$(echo "($rss_all - $rss_third) * 1024 / ($count - $third)" | bc -l)" >>"$work/results"
}

echo "idle_memory_bench: $count idle connections per server and mode ($modes), one worker each"
for mode in "${mode_list[@]}"; do
  measure "$mode" tiffany
  if [ "$mode" = websocket ]; then
    measure "$mode" node_ws
    continue
  fi
  measure "$mode" nginx
  [[ ! $mode =~ ^(http|h2c)$ ]] || measure "$mode" h2o
done
printf '%-9s %-8s %10s %10s %10s %14s %14s\n' mode server "RSS warm" "RSS N/3" "RSS N" "B/conn total" "B/conn margin"
printf '%-9s %-8s %10s %10s %10s %14s %14s\n' "" "" KiB KiB KiB "" ""
cat "$work/results"

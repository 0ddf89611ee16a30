#!/usr/bin/env bash
# loadtest/lib/smoke_test.sh: CTest's check that the benchmark library still starts and
# measures a peer: Tiffany from the library's config generator on 127.0.0.1, readiness,
# one second of wrk, CPU per request, RSS, and the ratio table; then the reverse-proxy
# generators of proxy_bench.sh: nginx and HAProxy, each when installed, in front of that
# Tiffany for one second of wrk with no error, and Tiffany's proxy config checked by
# the binary (--check-config); h2load (HTTP/1.1) read by parse_h2load, and h2_bench.sh's
# HTTP/2 config checked by the binary; ws_load (ws_bench.sh's client) echoing through
# websocket_echo with --verify, ws_broadcast_load (ws_bench.sh -m broadcast's client)
# through pubsub, every delivery checked, and idle_clients' websocket mode (idle_memory_bench.sh -m
# websocket) upgrading and holding a few. About 8 s; nothing installed or built
# (CTest runs it on the build it tests).
# usage: loadtest/lib/smoke_test.sh BUILD_DIR
set -euo pipefail
build_dir=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.."
bench_name=loadtest_smoke
source loadtest/lib/bench.sh

[ -x "$build_dir/server/tiffany" ] || die "no Tiffany binary at $build_dir/server/tiffany"
bench_work_dir
# Why a random port: CTest runs other suites at once, and they listen on loopback too.
port=$((20000 + RANDOM % 10000))
write_tiffany_conf 1 <<JSON
    { "name": "smoke", "address": "127.0.0.1:$port", "protocol": "http",
      "routes": [ { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello, World!" } },
                  { "method": "GET", "path": "/ws", "handler": "websocket_echo" },
                  { "method": "GET", "path": "/pubsub", "handler": "pubsub" } ] }
JSON
start_peer tiffany "$port" "0-$(($(nproc) - 1))"
wait_ready tiffany answers_http "http://127.0.0.1:$port/plaintext"

for round in 1 2; do
  run_measured "${pids[tiffany]}" timeout 20 wrk -t1 -c4 -d1s --latency "http://127.0.0.1:$port/plaintext" ||
    die_with_log tiffany "wrk failed: $measured_output"
  read -r requests rps mean p99 errors <<<"$(parse_wrk <<<"$measured_output")"
  ((requests > 0)) || die_with_log tiffany "completed no request in round $round: $measured_output"
  echo "tiffany plaintext $rps $mean $p99 $(cpu_us_per "$measured_ticks" "$requests") $errors" >>"$work/results"
done

# proxy_through PROXY: PROXY from its library generator on the next port, in front of Tiffany.
proxy_through() {
  local proxy=$1 proxy_port=$((port + 1)) requests rps errors
  case $proxy in
    nginx) write_nginx_proxy_conf "$proxy_port" "$port" 4 ;;
    haproxy) write_haproxy_conf "$proxy_port" "$port" 4 ;;
  esac
  start_peer "$proxy" "$proxy_port" "0-$(($(nproc) - 1))"
  wait_ready "$proxy" answers_http "http://127.0.0.1:$proxy_port/plaintext"
  check_loopback_only "$proxy"
  [ "$(curl -sS --max-time 5 "http://127.0.0.1:$proxy_port/plaintext")" = "Hello, World!" ] ||
    die_with_log "$proxy" "did not pass Tiffany's body through"
  run_measured "${pids[$proxy]}" timeout 20 wrk -t1 -c4 -d1s "http://127.0.0.1:$proxy_port/plaintext" ||
    die_with_log "$proxy" "wrk through it failed: $measured_output"
  read -r requests rps _ _ errors <<<"$(parse_wrk <<<"$measured_output")"
  ((requests > 0 && errors == 0)) || die_with_log "$proxy" "proxied $requests requests with $errors errors: $measured_output"
  echo "loadtest_smoke: $proxy in front of Tiffany: $rps req/s, $(cpu_us_per "$measured_ticks" "$requests" 1) us CPU per request"
  stop_peer "$proxy"
}
for proxy in nginx haproxy; do
  if command -v "$proxy" >/dev/null; then
    proxy_through "$proxy"
  else
    echo "loadtest_smoke: $proxy is not installed; its proxy generator is not checked"
  fi
done

# h2load (nghttp2-client, from scripts/setup.sh), which h2_bench.sh drives, read by
# parse_h2load: over HTTP/1.1 (--h1), which every Tiffany speaks.
command -v h2load >/dev/null || die "h2load is missing (scripts/setup.sh installs nghttp2-client)"
read -r requests _ _ _ errors protocol <<<"$(timeout 20 h2load --h1 -c 4 -n 2000 "http://127.0.0.1:$port/plaintext" |
  parse_h2load)"
((requests == 2000 && errors == 0)) && [ "$protocol" = http/1.1 ] ||
  die_with_log tiffany "h2load --h1 made $requests requests with $errors errors over '$protocol' (2000, 0, http/1.1 expected)"
echo "loadtest_smoke: h2load made 2000 HTTP/1.1 requests to Tiffany, parsed"

# ws_load (ws_bench.sh's client): upgrades, echoes checked byte for byte, its line read by client_field.
output=$(timeout 20 "$build_dir/loadtest/ws_load" --port "$port" --path /ws --connections 4 --size 512 \
  --duration 1 --verify 2>&1) || die_with_log tiffany "ws_load --verify failed: $output"
messages=$(client_field messages "$output")
((messages > 0)) && [ "$(client_field errors "$output")" = 0 ] ||
  die_with_log tiffany "ws_load echoed $messages messages: $output"
echo "loadtest_smoke: ws_load echoed $messages WebSocket messages through websocket_echo, verified"
# ws_broadcast_load (ws_bench.sh -m broadcast's client): 50 subscribers, one publisher, every
# delivery checked (the text published, in order); each published message reaches all 50, and
# Tiffany's CPU over the publishing is read (--server-pid, as ws_bench.sh -m broadcast reads it).
output=$(timeout 30 "$build_dir/loadtest/ws_broadcast_load" --port "$port" --path /pubsub --connections 50 --size 512 \
  --window 16 --duration 1 --server-pid "${pids[tiffany]}" 2>&1) || die_with_log tiffany "ws_broadcast_load failed: $output"
deliveries=$(client_field deliveries "$output")
((deliveries > 0 && deliveries == 50 * $(client_field published "$output"))) && [ "$(client_field errors "$output")" = 0 ] &&
  [[ $(client_field server_cpu_us "$output") =~ ^[1-9][0-9]*$ ]] ||
  die_with_log tiffany "ws_broadcast_load delivered $deliveries messages: $output"
echo "loadtest_smoke: ws_broadcast_load had $deliveries messages delivered through pubsub to 50 subscribers, checked"
# idle_clients --mode websocket (idle_memory_bench.sh -m websocket): 20 upgrades held, then closed.
output=$(timeout 20 "$build_dir/loadtest/idle_clients" --port "$port" --counts 20 --mode websocket --path /ws \
  </dev/null 2>&1) || die_with_log tiffany "idle_clients --mode websocket failed: $output"
[ "$output" = "open 20" ] || die_with_log tiffany "idle_clients --mode websocket said: $output"
echo "loadtest_smoke: idle_clients opened 20 WebSockets"

rss=$(rss_kib "${pids[tiffany]}")
((rss > 0)) || die "read no RSS for Tiffany"
alive tiffany || die_with_log tiffany "died under load"
pid=${pids[tiffany]}
stop_peer tiffany
! kill -0 "$pid" 2>/dev/null || die "Tiffany (pid $pid) still runs after stop_peer"

# Tiffany's own proxy generator must give a config the binary accepts.
write_tiffany_proxy_conf $((port + 1)) "$port" 4
if check=$("$build_dir/server/tiffany" --check-config --config "$work/tiffany.json" 2>&1); then
  echo "loadtest_smoke: Tiffany's proxy config is valid"
elif [[ $check == *'unknown handler "proxy"'* ]]; then
  # Why: proxy_bench.sh was written before the proxy handler (issue 14) was merged.
  echo "loadtest_smoke: this Tiffany has no proxy handler; its proxy config is not checked"
else
  die "Tiffany refuses the config of write_tiffany_proxy_conf: $check"
fi

# h2_bench.sh's Tiffany config (two HTTP/2 listeners, one with TLS) must be one the binary accepts.
make_cert rsa
write_tiffany_h2_conf $((port + 1)) $((port + 2))
if check=$("$build_dir/server/tiffany" --check-config --config "$work/tiffany.json" 2>&1); then
  echo "loadtest_smoke: Tiffany's HTTP/2 config is valid"
elif [[ $check == *http2* && $check == *'unknown key'* ]]; then
  # Why: h2_bench.sh was written before HTTP/2 listeners were merged.
  echo "loadtest_smoke: this Tiffany has no HTTP/2 listeners; its HTTP/2 config is not checked"
else
  die "Tiffany refuses the config of write_tiffany_h2_conf: $check"
fi

printf '%-13s %-10s %12s %10s %12s %8s\n' server scenario req/s mean_ms cpu_us/req errors
report 2 '
  END {
    if (keys != 1 || n[order[1]] != 2) { print "loadtest_smoke: expected two rows of one key"; exit 1 }
    printf "%-13s %-10s %12.0f %10.3f %12.3f %8d\n", "tiffany", "plaintext", avg(order[1], 1), avg(order[1], 2) / 1000,
           avg(order[1], 4), total(order[1], 5)
    ratio_line("tiffany req/s / itself:", avg(order[1], 1), avg(order[1], 1))
  }' "$work/results"
echo "loadtest_smoke: RSS ${rss} KiB; the library starts, measures and stops a peer"

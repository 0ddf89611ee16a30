#!/usr/bin/env bash
# HTTPS benchmark: Tiffany beside nginx (1 worker), same certificate, same run.
# Each server gets core 0, the clients core 1; rounds alternate between them.
#  - keep-alive: wrk over https on /plaintext (requests/s, server CPU us/request)
#  - handshakes: new full handshakes/s (and server CPU us per handshake), from
#    loadtest/tls_handshake_load with 16 connections (it keeps the server busy),
#    and from CLIENTS `openssl s_time -new` at once (each costs the client core
#    more CPU per handshake than the server spends, so this row is client-bound)
# usage: loadtest/https_bench.sh [SECONDS_PER_ROUND=5] [ROUNDS=3] [CONNECTIONS=64] [CLIENTS=2]
# Environment: TLS_VERSION=1.2|1.3 (default 1.3), KEY=rsa|ec (default rsa: the shipped kind)
set -euo pipefail
cd "$(dirname "$0")/.."
bench_name=https_bench
source loadtest/lib/bench.sh
seconds=${1:-5} rounds=${2:-3} connections=${3:-64} clients=${4:-2}
version=${TLS_VERSION:-1.3} key=${KEY:-rsa}

command -v nginx >/dev/null || die "needs nginx (apt-get install nginx-light)"
bench_prepare
bench_work_dir
port_tiffany=18443 port_nginx=18444
make_cert "$key"
# nginx gets Tiffany's default TLS 1.2 cipher list (TLS 1.3 suites are OpenSSL's defaults in both).
ciphers=$(sed -n '/kDefaultTlsCiphers =/,/;$/p' conf/config.hpp | grep -o '"[^"]*"' | tr -d '"\n')

write_tiffany_conf 1 <<JSON
    { "name": "https", "address": "127.0.0.1:$port_tiffany", "protocol": "http",
      "tls": { "cert": "cert.pem", "key": "key.pem" },
      "routes": [ { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello, World!" } } ] }
JSON
write_nginx_conf 1 4096 <<CONF
  server {
    listen 127.0.0.1:$port_nginx ssl;
    ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_ciphers $ciphers;
    location = /plaintext { default_type text/plain; return 200 "Hello, World!"; }
  }
CONF

# keepalive NAME PORT: one wrk run; appends "keepalive NAME rps cpu_us_per_req" to results.
keepalive() {
  local requests rps
  run_measured "${pids[$1]}" taskset -c 1 wrk -t1 -c"$connections" -d"${seconds}s" "https://127.0.0.1:$2/plaintext"
  read -r requests rps _ <<<"$(parse_wrk <<<"$measured_output")"
  grep -qE 'Socket errors|Non-2xx' <<<"$measured_output" && echo "$1: $(grep -E 'Socket errors|Non-2xx' <<<"$measured_output")" >&2
  echo "keepalive $1 $rps $(cpu_us_per "$measured_ticks" "$requests" 2)" >>"$work/results"
}

# handshakes NAME PORT: tls_handshake_load; appends "handshakes NAME per_sec cpu_us_per_handshake".
handshakes() {
  run_measured "${pids[$1]}" taskset -c 1 "$build_dir/loadtest/tls_handshake_load" --port "$2" --connections 16 \
    --duration "$seconds" --tls "$version"
  echo "handshakes $1 $(client_field handshakes_per_sec "$measured_output")" \
    "$(cpu_us_per "$measured_ticks" "$(client_field handshakes "$measured_output")" 2)" >>"$work/results"
}

# s_times PORT: $clients s_time -new at once; prints how many handshakes they made in all.
s_times() {
  local i n total=0 clients_pids=()
  for ((i = 1; i <= clients; i++)); do
    taskset -c 1 openssl s_time -connect "127.0.0.1:$1" -new -time "$seconds" "-tls${version/./_}" \
      >"$work/s_time.$i" 2>&1 &
    clients_pids+=($!)
  done
  wait "${clients_pids[@]}"
  for ((i = 1; i <= clients; i++)); do
    n=$(sed -nE 's/^([0-9]+) connections in [0-9.]+ real seconds.*/\1/p' "$work/s_time.$i")
    total=$((total + ${n:-0}))
  done
  echo "$total"
}

# s_time NAME PORT: appends "s_time NAME per_sec cpu_us_per_handshake".
s_time() {
  run_measured "${pids[$1]}" s_times "$2"
  echo "s_time $1 $(echo "scale=1; $measured_output/$seconds" | bc) $(cpu_us_per "$measured_ticks" "$measured_output" 2)" \
    >>"$work/results"
}

start_peer tiffany "$port_tiffany" 0
start_peer nginx "$port_nginx" 0
wait_ready tiffany answers_http "https://localhost:$port_tiffany/plaintext" -f --cacert "$work/cert.pem"
wait_ready nginx answers_http "https://localhost:$port_nginx/plaintext" -f --cacert "$work/cert.pem"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((round = 1; round <= rounds; round++)); do
  for test in keepalive handshakes s_time; do
    "$test" tiffany "$port_tiffany"
    "$test" nginx "$port_nginx"
  done
done

echo "https: $key key, TLS $version handshakes, $connections keep-alive connections (wrk), $clients s_time clients,"
echo "$rounds rounds of ${seconds}s, load average before: $load_before"
echo "server (1 worker) on core 0, clients on core 1"
printf '%-11s %-8s %14s %16s\n' test server "per second" "server cpu us"
report 2 '
  END {
    for (k = 1; k <= keys; k++) {
      split(order[k], part, " ")
      printf "%-11s %-8s %14.0f %16.2f\n", part[1], part[2], avg(order[k], 1), avg(order[k], 2)
    }
  }' "$work/results" | sort
report 2 '
  END {
    printf "ratio tiffany/nginx: keep-alive %s, handshakes %s, s_time %s\n",
      ratio(avg("keepalive tiffany", 1), avg("keepalive nginx", 1)),
      ratio(avg("handshakes tiffany", 1), avg("handshakes nginx", 1)),
      ratio(avg("s_time tiffany", 1), avg("s_time nginx", 1))
  }' "$work/results"

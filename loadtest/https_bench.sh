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
seconds=${1:-5} rounds=${2:-3} connections=${3:-64} clients=${4:-2}
version=${TLS_VERSION:-1.3} key=${KEY:-rsa}

scripts/setup.sh
command -v nginx >/dev/null || { echo "https_bench: needs nginx (apt-get install nginx-light)" >&2; exit 1; }
build_dir=$(scripts/build.sh | tail -n 1)

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
port_tiffany=18443 port_nginx=18444
if [ "$key" = ec ]; then newkey=(-newkey ec -pkeyopt ec_paramgen_curve:P-256); else newkey=(-newkey rsa:2048); fi
openssl req -x509 "${newkey[@]}" -nodes -days 2 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
# nginx gets Tiffany's default TLS 1.2 cipher list (TLS 1.3 suites are OpenSSL's defaults in both).
ciphers=$(sed -n '/kDefaultTlsCiphers =/,/;$/p' conf/config.hpp | grep -o '"[^"]*"' | tr -d '"\n')

cat >"$work/tiffany.json" <<JSON
{"workers": 1, "listeners": [{"name": "https", "address": "127.0.0.1:$port_tiffany", "protocol": "http",
  "tls": {"cert": "cert.pem", "key": "key.pem"},
  "routes": [{"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"}]}]}
JSON
mkdir -p "$work/nginx"
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  server {
    listen 127.0.0.1:$port_nginx ssl;
    ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_ciphers $ciphers;
    location = /plaintext { default_type text/plain; return 200 "Hello, World!"; }
  }
}
CONF

cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
us_per() { echo "scale=2; ($2-$1)*1000000/$(getconf CLK_TCK)/$3" | bc; }

# keepalive NAME PID PORT: one wrk run; appends "keepalive NAME rps cpu_us_per_req" to results.
keepalive() {
  local before after out requests rps
  before=$(cpu_ticks "$2")
  out=$(taskset -c 1 wrk -t1 -c"$connections" -d"${seconds}s" "https://127.0.0.1:$3/plaintext")
  after=$(cpu_ticks "$2")
  requests=$(awk '/requests in/{print $1}' <<<"$out")
  rps=$(awk '/Requests\/sec/{print $2}' <<<"$out")
  grep -qE 'Socket errors|Non-2xx' <<<"$out" && echo "$1: $(grep -E 'Socket errors|Non-2xx' <<<"$out")" >&2
  echo "keepalive $1 $rps $(us_per "$before" "$after" "$requests")" >>"$work/results"
}

# handshakes NAME PID PORT: tls_handshake_load; appends "handshakes NAME per_sec cpu_us_per_handshake".
handshakes() {
  local before after out count
  before=$(cpu_ticks "$2")
  out=$(taskset -c 1 "$build_dir/loadtest/tls_handshake_load" --port "$3" --connections 16 --duration "$seconds" \
        --tls "$version")
  after=$(cpu_ticks "$2")
  count=$(sed -E 's/.* handshakes=([0-9]+).*/\1/' <<<"$out")
  echo "handshakes $1 $(sed -E 's/.*handshakes_per_sec=([0-9]+).*/\1/' <<<"$out") $(us_per "$before" "$after" "$count")" \
    >>"$work/results"
}

# s_time NAME PID PORT: $clients s_time -new at once; appends "s_time NAME per_sec cpu_us_per_handshake".
s_time() {
  local before after total=0 n pids=()
  before=$(cpu_ticks "$2")
  for ((i = 1; i <= clients; i++)); do
    taskset -c 1 openssl s_time -connect "127.0.0.1:$3" -new -time "$seconds" "-tls${version/./_}" \
      >"$work/s_time.$i" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  after=$(cpu_ticks "$2")
  for ((i = 1; i <= clients; i++)); do
    n=$(sed -nE 's/^([0-9]+) connections in [0-9.]+ real seconds.*/\1/p' "$work/s_time.$i")
    total=$((total + ${n:-0}))
  done
  echo "s_time $1 $(echo "scale=1; $total/$seconds" | bc) $(us_per "$before" "$after" "$total")" >>"$work/results"
}

taskset -c 0 "$build_dir/server/tiffany" --config "$work/tiffany.json" >"$work/tiffany.out" 2>&1 &
tiffany_pid=$!
taskset -c 0 nginx -p "$work" -c "$work/nginx.conf" &
nginx_master=$!
sleep 1
nginx_pid=$(pgrep -P "$nginx_master" | head -n 1)  # the one worker
curl -sf --cacert "$work/cert.pem" "https://localhost:$port_tiffany/plaintext" >/dev/null
curl -sf --cacert "$work/cert.pem" "https://localhost:$port_nginx/plaintext" >/dev/null

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((round = 1; round <= rounds; round++)); do
  keepalive tiffany "$tiffany_pid" "$port_tiffany"
  keepalive nginx "$nginx_pid" "$port_nginx"
  handshakes tiffany "$tiffany_pid" "$port_tiffany"
  handshakes nginx "$nginx_pid" "$port_nginx"
  s_time tiffany "$tiffany_pid" "$port_tiffany"
  s_time nginx "$nginx_pid" "$port_nginx"
done

echo "https: $key key, TLS $version handshakes, $connections keep-alive connections (wrk), $clients s_time clients,"
echo "$rounds rounds of ${seconds}s, load average before: $load_before"
echo "server (1 worker) on core 0, clients on core 1"
printf '%-11s %-8s %14s %16s\n' test server "per second" "server cpu us"
awk '{k=$1" "$2; rate[k]+=$3; cpu[k]+=$4; n[k]++}
     END {for (k in n) {split(k, p, " "); printf "%-11s %-8s %14.0f %16.2f\n", p[1], p[2], rate[k]/n[k], cpu[k]/n[k]}}' \
  "$work/results" | sort
awk '{k=$1" "$2; rate[k]+=$3; n[k]++}
     END {printf "ratio tiffany/nginx: keep-alive %.3f, handshakes %.3f, s_time %.3f\n",
            (rate["keepalive tiffany"]/n["keepalive tiffany"])/(rate["keepalive nginx"]/n["keepalive nginx"]),
            (rate["handshakes tiffany"]/n["handshakes tiffany"])/(rate["handshakes nginx"]/n["handshakes nginx"]),
            (rate["s_time tiffany"]/n["s_time tiffany"])/(rate["s_time nginx"]/n["s_time nginx"])}' \
  "$work/results"

#!/usr/bin/env bash
# HTTP/2 benchmark: Tiffany beside h2o and nginx, in one run, on loopback, with h2load
# (nghttp2-client). Each server runs one worker pinned on core 0 and h2load one thread on
# core 1; every server answers GET /plaintext with "Hello, World!" on a cleartext port (h2c
# by prior knowledge) and a TLS port (h2 by ALPN, one self-signed RSA certificate for all).
# Scenarios: h2load -c 64 -m 16 (16 streams at once per connection) and -c 64 -m 1, each
# over h2c and over TLS; the servers take turns, round after round. Prints req/s, mean time
# per request, server CPU microseconds per request (utime+stime from /proc) and errors,
# averaged over the rounds, with ratios of Tiffany to h2o and to nginx; writes a PNG bar
# chart of req/s and the table as text beside it.
# A server that does not answer HTTP/2 on a port (checked with curl before the runs, and
# h2load must report h2c or h2) stops the run with its log: no number is made up.
# usage: loadtest/h2_bench.sh [-d SECONDS] [-r ROUNDS] [-p BASE_PORT] [-s SERVERS] [-o PNG]
set -euo pipefail

invocation_dir=$PWD
cd "$(dirname "$0")/.."
root_dir=$PWD
bench_name=h2_bench
source loadtest/lib/bench.sh

servers=(tiffany h2o nginx)
scenarios=(h2c_m16 h2c_m1 tls_m16 tls_m1)
connections=64

usage() {
  cat <<EOF
usage: loadtest/h2_bench.sh [-d SECONDS] [-r ROUNDS] [-p BASE_PORT] [-s SERVERS] [-o PNG]
  -d SECONDS    length of one h2load run, 1..30 (default 5)
  -r ROUNDS     rounds over all servers and scenarios, 1..5 (default 2); a round is 12 runs
  -p BASE_PORT  servers listen on 127.0.0.1:BASE_PORT+1..+6, 1024..65000 (default 18280)
  -s SERVERS    comma-separated subset of tiffany,h2o,nginx (default all three; without
                tiffany nothing is built and the ratios print n/a)
  -o PNG        chart path (default loadtest/results/h2_bench.png); the table goes beside it as .txt
EOF
}

parse_args() {
  seconds=5 rounds=2 base_port=18280 png=$root_dir/loadtest/results/h2_bench.png
  local name server_list
  server_list=$(
    IFS=,
    echo "${servers[*]}"
  )
  parse_options 'd=seconds r=rounds p=base_port s=server_list o=/png' "$@"
  IFS=, read -r -a servers <<<"$server_list"
  in_range seconds "$seconds" 1 30
  in_range rounds "$rounds" 1 5
  in_range base_port "$base_port" 1024 65000
  ((${#servers[@]} > 0)) || die "-s names no server"
  for name in "${servers[@]}"; do
    [[ $name =~ ^(tiffany|h2o|nginx)$ ]] || die "-s: unknown server '$name' (tiffany, h2o, nginx)"
  done
  table=${png%.png}.txt
}

has_tiffany() { [[ " ${servers[*]} " == *" tiffany "* ]]; }

install_and_build() {
  if has_tiffany; then bench_prepare peers; else bench_prepare peers no_tiffany; fi
}

# port_of SERVER h2c|tls
port_of() {
  local offset
  case $1 in
    tiffany) offset=1 ;;
    h2o) offset=3 ;;
    nginx) offset=5 ;;
  esac
  [ "$2" = h2c ] || offset=$((offset + 1))
  echo $((base_port + offset))
}

# url_of SERVER SCENARIO|TRANSPORT: the URL h2load and the checks use.
url_of() {
  case $2 in
    h2c*) echo "http://127.0.0.1:$(port_of "$1" h2c)/plaintext" ;;
    tls*) echo "https://127.0.0.1:$(port_of "$1" tls)/plaintext" ;;
  esac
}

write_configs() {
  printf 'Hello, World!' >"$work/plaintext.txt"
  make_cert rsa
  write_tiffany_h2_conf "$(port_of tiffany h2c)" "$(port_of tiffany tls)"
  # nginx 1.22 (Debian 12): `listen ... http2` (not yet the `http2 on;` directive); on the
  # cleartext port that is h2c by prior knowledge only.
  write_nginx_conf 1 4096 <<CONF
  keepalive_timeout 65;
  keepalive_requests 1000000000;
  http2_max_concurrent_streams 128;
  server {
    listen 127.0.0.1:$(port_of nginx h2c) http2 backlog=4096;
    listen 127.0.0.1:$(port_of nginx tls) ssl http2 backlog=4096;
    ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem;
    location = /plaintext {
      default_type text/plain;
      return 200 "Hello, World!";
    }
  }
CONF
  # h2o 2.2: one thread; the body from a file, as in http_bench.sh.
  write_h2o_conf 1 "$(port_of h2o h2c)" "" "$(port_of h2o tls)" <<CONF
      /plaintext:
        file.file: $work/plaintext.txt
CONF
}

start_servers() {
  local name transport
  for name in "${servers[@]}"; do
    check_port_free "$(port_of "$name" tls)"
    start_peer "$name" "$(port_of "$name" h2c)" 0
  done
  for name in "${servers[@]}"; do
    wait_ready "$name" accepts_tcp "$(port_of "$name" h2c)"
    wait_ready "$name" accepts_tcp "$(port_of "$name" tls)"
    for transport in h2c tls; do check_h2 "$name" "$(url_of "$name" "$transport")" "$work/plaintext.txt"; done
    check_loopback_only "$name"
  done
  echo "h2_bench: every server answers HTTP/2 on both ports (h2c by prior knowledge, h2 by ALPN)"
}

# streams_of SCENARIO: h2load's -m.
streams_of() { echo "${1##*_m}"; }

# measure SERVER SCENARIO: one h2load run; appends "server scenario rps mean_us cpu_us errors".
measure() {
  local name=$1 scenario=$2 requests rps mean errors protocol cpu want=h2
  [[ $scenario != h2c* ]] || want=h2c
  run_measured "${pids[$name]}" timeout $((seconds + 30)) taskset -c 1 \
    h2load -t 1 -c "$connections" -m "$(streams_of "$scenario")" -D "$seconds" "$(url_of "$name" "$scenario")" ||
    die_with_log "$name" "h2load failed on $scenario: $measured_output"
  alive "$name" || die_with_log "$name" "died during the $scenario run"
  read -r requests rps mean _ errors protocol <<<"$(parse_h2load <<<"$measured_output")"
  [ "$protocol" = "$want" ] || die_with_log "$name" "h2load spoke '$protocol', not $want, in the $scenario run: $measured_output"
  ((requests > 0)) || die_with_log "$name" "completed no request in the $scenario run: $measured_output"
  cpu=$(cpu_us_per "$measured_ticks" "$requests")
  echo "$name $scenario $rps $mean $cpu $errors" >>"$work/results"
  printf '  %-8s %-8s %12.0f req/s  %8s us/req cpu  %d errors\n' "$name" "$scenario" "$rps" "$cpu" "$errors"
}

run_rounds() {
  local round scenario name
  echo "h2_bench: warming up"
  for name in "${servers[@]}"; do
    timeout 30 taskset -c 1 h2load -t 1 -c "$connections" -m 16 -D 1 "$(url_of "$name" h2c)" >/dev/null
  done
  for ((round = 1; round <= rounds; round++)); do
    echo "h2_bench: round $round of $rounds"
    for scenario in "${scenarios[@]}"; do
      for name in "${servers[@]}"; do measure "$name" "$scenario"; done
    done
  done
}

versions() {
  ! has_tiffany || echo "tiffany: $("$build_dir/server/tiffany" --version 2>&1 | head -n 1)"
  echo "h2o: $(h2o --version 2>&1 | head -n 1)"
  echo "nginx: $(nginx -v 2>&1 | head -n 1)"
  echo "h2load: $(h2load --version 2>&1 | head -n 1)"
  echo "kernel: $(uname -r)"
}

# summarize: the averaged table and the ratio lines, on stdout.
summarize() {
  echo "HTTP/2 benchmark: h2load -t1 -c$connections -m16 and -m1, $rounds rounds of ${seconds}s per server and scenario;"
  echo "h2c: cleartext, HTTP/2 by prior knowledge; tls: h2 by ALPN (TLS 1.3, RSA 2048 certificate);"
  echo "GET /plaintext answering 'Hello, World!'; 1 worker per server on core 0, h2load on core 1"
  versions | sed 's/^/  /'
  echo "  CPU used by other processes just before the run: ${background_load}%"
  echo "averages over the rounds; errors are summed (requests done that did not succeed: failed, or 4xx/5xx)"
  # Columns after the key: 1 req/s, 2 mean_us, 3 cpu_us/req, 4 errors.
  report 2 '
    END {
      ns = split(servers, server, " "); nc = split(scenarios, scenario, " ")
      printf "%-8s %-8s %12s %10s %12s %8s\n", "server", "scenario", "req/s", "mean_ms", "cpu_us/req", "errors"
      for (c = 1; c <= nc; c++) for (s = 1; s <= ns; s++) {
        key = server[s] " " scenario[c]
        if (!n[key]) { printf "%-8s %-8s %12s %10s %12s %8s\n", server[s], scenario[c], "n/a", "n/a", "n/a", "n/a"; continue }
        printf "%-8s %-8s %12.0f %10.3f %12.3f %8d\n", server[s], scenario[c], avg(key, 1), avg(key, 2) / 1000,
               avg(key, 3), total(key, 4)
      }
      print ""
      for (c = 1; c <= nc; c++) {
        if (!n["tiffany " scenario[c]]) { print "no Tiffany run in " scenario[c] ": no ratios"; continue }
        ratio_line("tiffany req/s / h2o req/s (" scenario[c] "):", avg("tiffany " scenario[c], 1), avg("h2o " scenario[c], 1))
        ratio_line("tiffany req/s / nginx req/s (" scenario[c] "):", avg("tiffany " scenario[c], 1), avg("nginx " scenario[c], 1))
        ratio_line("tiffany cpu/req / h2o cpu/req (" scenario[c] "):", avg("tiffany " scenario[c], 3), avg("h2o " scenario[c], 3))
        ratio_line("tiffany cpu/req / nginx cpu/req (" scenario[c] "):", avg("tiffany " scenario[c], 3), avg("nginx " scenario[c], 3))
      }
    }' "$work/results" servers="${servers[*]}" scenarios="${scenarios[*]}"
}

draw_chart() {
  chart_data "$work/results" "${servers[*]}" "${scenarios[*]}" "h2c_-m16 h2c_-m1 h2_TLS_-m16 h2_TLS_-m1" >"$work/chart.dat"
  bar_chart "$work/chart.dat" "$png" \
    "HTTP/2 req/s on one server core: h2load -t1 -c$connections on another, ${rounds} x ${seconds}s (log scale)"
}

main() {
  parse_args "$@"
  install_and_build
  bench_work_dir
  write_configs
  measure_background_load
  start_servers
  run_rounds
  mkdir -p "$(dirname "$png")"
  summarize | tee "$table"
  draw_chart
  echo "h2_bench: chart $png, table $table"
}

main "$@"

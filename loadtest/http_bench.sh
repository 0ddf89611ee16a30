#!/usr/bin/env bash
# HTTP benchmark: Tiffany beside nginx, h2o and ../shared/bench/limit_server.c
# (the floor), in one run, on loopback. Each server gets core 0 and wrk core 1
# (wrk -t1); for each scenario (plaintext keep-alive, plaintext pipelined x16,
# a 4 KiB static file, a 100 MiB download, a 64 KiB HTML page compressed for
# "Accept-Encoding: gzip, br" and for "gzip" alone, the same page
# precompressed as page.html.gz, and that .gz served as a plain static file: the
# same bytes without negotiation, which the precompressed rate is measured
# against) the servers take turns, round after round. Prints req/s,
# mean and p99 latency, server CPU microseconds per request (utime+stime from
# /proc, as ../shared/bench/cpu_per_req.sh does) and errors, averaged over the
# rounds, with ratios of Tiffany to its peers, and for the compressed scenarios
# the bytes of one response (header and body, measured once with curl); writes a
# PNG bar chart of req/s and the table as text beside it.
# Compression: Tiffany's defaults (br 4, zstd 3, gzip 5), nginx `gzip on` at
# gzip_comp_level 5, h2o `compress: ON` (its own defaults); precompressed:
# Tiffany `precompressed`, nginx `gzip_static on`, h2o `file.send-compressed: ON`.
# With -w 2 every server runs two workers (Tiffany "workers": 2, nginx
# worker_processes 2, h2o num-threads 2) on both cores and wrk -t2 shares them;
# limit_server, single-threaded, sits that out. CPU counts every process of a server.
# usage: loadtest/http_bench.sh [-d SECONDS] [-r ROUNDS] [-c CONNECTIONS] [-w WORKERS] [-p BASE_PORT] [-o PNG]
set -euo pipefail

invocation_dir=$PWD
cd "$(dirname "$0")/.."
root_dir=$PWD
bench_name=http_bench
source loadtest/lib/bench.sh

servers=(tiffany nginx h2o limit_server)
scenarios=(plaintext pipelined static download gzip_br gzip precompressed static_gz)
pipeline_depth=16
static_name=4k.txt
download_name=100m.bin  # served from the page cache: nginx with sendfile, Tiffany with sendfile, h2o its own way
page_name=page.html     # 64 KiB of compressible HTML, compressed per request (gzip_br, gzip) or ahead (precompressed)
gzip_level=5            # Tiffany's default gzip level; nginx gets the same

usage() {
  cat <<EOF
usage: loadtest/http_bench.sh [-d SECONDS] [-r ROUNDS] [-c CONNECTIONS] [-w WORKERS] [-p BASE_PORT] [-o PNG]
  -d SECONDS      length of one wrk run, 1..30 (default 5)
  -r ROUNDS       rounds over all servers and scenarios, 1..5 (default 2); a round is 23 runs
  -c CONNECTIONS  wrk connections, 1..1024 (default 64)
  -w WORKERS      workers per server, 1 or 2 (default 1: server on core 0, wrk -t1 on core 1;
                  2: servers and wrk -t2 share both cores, and limit_server is left out)
  -p BASE_PORT    servers listen on 127.0.0.1:BASE_PORT+1..+4, 1024..65000 (default 18180)
  -o PNG          chart path (default loadtest/results/http_bench.png, or http_bench_2workers.png
                  with -w 2); the table goes beside it as .txt
EOF
}

parse_args() {
  seconds=5 rounds=2 connections=64 workers=1 base_port=18180 png=
  parse_options 'd=seconds r=rounds c=connections w=workers p=base_port o=/png' "$@"
  in_range seconds "$seconds" 1 30
  in_range rounds "$rounds" 1 5
  in_range connections "$connections" 1 1024
  in_range base_port "$base_port" 1024 65000
  in_range workers "$workers" 1 2
  if ((workers == 1)); then
    server_cpus=0 wrk_cpus=1
    png=${png:-$root_dir/loadtest/results/http_bench.png}
  else
    server_cpus=0,1 wrk_cpus=0,1
    servers=(tiffany nginx h2o)  # limit_server has one thread
    png=${png:-$root_dir/loadtest/results/http_bench_2workers.png}
  fi
  table=${png%.png}.txt
}

install_and_build() {
  [ -f "$shared/bench/pipeline.lua" ] || die "missing $shared/bench/pipeline.lua (set TIFFANY_SHARED to the shared folder)"
  bench_prepare peers limit_server
}

# make_site: the files every server serves, in the temp dir.
make_site() {
  mkdir -p "$work/static"
  printf 'Hello, World!' >"$work/plaintext.txt"
  head -c 3072 /dev/urandom | base64 -w 0 | head -c 4096 >"$work/static/$static_name"
  [ "$(stat -c %s "$work/static/$static_name")" -eq 4096 ] || die "could not make the 4 KiB static file"
  head -c $((100 * 1024 * 1024)) /dev/urandom >"$work/static/$download_name"
  [ "$(stat -c %s "$work/static/$download_name")" -eq $((100 * 1024 * 1024)) ] || die "could not make the 100 MiB file"
  make_page
}

# make_page: $work/compress/$page_name, 64 KiB of HTML table rows (words drawn from
# a small vocabulary by a seeded generator: compresses about as well as real
# pages do), and $work/precompressed/ holding it with its .gz made by gzip -$gzip_level.
make_page() {
  mkdir -p "$work/compress" "$work/precompressed"
  awk 'BEGIN {
         srand(11)
         split("tiffany coroutine kernel ring worker task scheduler request response header body chunk " \
               "stream buffer socket listener route handler plugin deadline timeout cancel join spawn yield", word, " ")
         print "<!doctype html><html><head><title>bench</title></head><body><table>"
         for (row = 0; row < 1400; row++) {
           line = "<tr class=\"r" row % 7 "\"><td>" row "</td><td>"
           for (w = 0; w < 6; w++) line = line word[int(rand() * 24) + 1] " "
           print line "</td><td>" int(rand() * 100000) "</td></tr>"
         }
       }' >"$work/compress/$page_name"
  truncate -s 65536 "$work/compress/$page_name"  # Why not head -c: awk would die of SIGPIPE under pipefail
  [ "$(stat -c %s "$work/compress/$page_name")" -eq 65536 ] || die "could not make the 64 KiB page"
  cp "$work/compress/$page_name" "$work/precompressed/$page_name"
  gzip -"$gzip_level" -k -n "$work/precompressed/$page_name"
  cp "$work/precompressed/$page_name.gz" "$work/static/$page_name.gz"
}

port_of() {
  case $1 in
    tiffany) echo $((base_port + 1)) ;;
    nginx) echo $((base_port + 2)) ;;
    h2o) echo $((base_port + 3)) ;;
    limit_server) echo $((base_port + 4)) ;;
  esac
}

write_configs() {
  write_tiffany_conf "$workers" <<JSON
    {
      "name": "bench",
      "address": "127.0.0.1:$(port_of tiffany)",
      "protocol": "http",
      "routes": [
        { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello, World!", "content_type": "text/plain" } },
        { "method": "GET", "path": "/static/*", "handler": "static", "with": { "root": "static" } },
        { "method": "GET", "path": "/compress/*", "handler": "static", "with": { "root": "compress" },
          "compress": { "level": { "gzip": $gzip_level } } },
        { "method": "GET", "path": "/precompressed/*", "handler": "static",
          "with": { "root": "precompressed", "precompressed": true } }
      ]
    }
JSON
  # nginx: sendfile and open_file_cache on.
  write_nginx_conf "$workers" 4096 <<CONF
  types { text/plain txt; text/html html; }
  default_type application/octet-stream;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_timeout 65;
  keepalive_requests 1000000000;
  open_file_cache max=1024 inactive=60s;
  open_file_cache_valid 60s;
  open_file_cache_min_uses 1;
  open_file_cache_errors on;
  server {
    listen 127.0.0.1:$(port_of nginx) backlog=4096;
    location = /plaintext {
      default_type text/plain;
      return 200 "Hello, World!";
    }
    location /static/ {
      root $work;
    }
    location /compress/ {
      root $work;
      gzip on;
      gzip_comp_level $gzip_level;
      gzip_vary on;
    }
    location /precompressed/ {
      root $work;
      gzip_static on;
      gzip_vary on;
    }
  }
CONF
  # h2o 2.2: one thread per worker, files served by file.file/file.dir.
  write_h2o_conf "$workers" "$(port_of h2o)" <<CONF
      /plaintext:
        file.file: $work/plaintext.txt
      /static:
        file.dir: $work/static
      /compress:
        file.dir: $work/compress
        compress: ON
      /precompressed:
        file.dir: $work/precompressed
        file.send-compressed: ON
CONF
}

# check_compression NAME: each compressed scenario answers 200 with the coding
# expected and a body that decodes to the page (curl --compressed decodes);
# records the bytes of one response (header + body) in $work/bytes.
check_compression() {
  local name=$1 scenario url accept expected got coding
  for scenario in gzip_br gzip precompressed; do
    set_wrk_args "$name" "$scenario"
    url=${wrk_args[-1]} accept=${wrk_args[1]#Accept-Encoding: }
    expected=gzip
    # Tiffany prefers br; nginx 1.22 has no brotli; h2o sends br when built with it, else gzip
    [ "$scenario" != gzip_br ] || [ "$name" != tiffany ] || expected=br
    got=$(curl -sS --max-time 5 --compressed -H "Accept-Encoding: $accept" -o "$work/answer" \
      -w '%{http_code} %{size_header} %{size_download}' -D "$work/answer-head" "$url") ||
      die_with_log "$name" "GET $url failed"
    coding=$(awk 'tolower($1) == "content-encoding:" {print $2}' "$work/answer-head" | tr -d '\r')
    [ "${got%% *}" = 200 ] || die_with_log "$name" "GET $url ($accept) answered ${got%% *}, expected 200"
    [ "$coding" = "$expected" ] || { [ "$name" = h2o ] && [ "$scenario" = gzip_br ] && [ "$coding" = br ]; } || die_with_log "$name" "GET $url ($accept) came with coding '$coding', expected $expected"
    cmp -s "$work/answer" "$work/compress/$page_name" || die_with_log "$name" "GET $url ($accept) did not decode to the page"
    read -r _ header_bytes body_bytes <<<"$got"
    echo "$name $scenario $header_bytes $body_bytes $coding" >>"$work/bytes"
  done
}

start_servers() {
  local name
  for name in "${servers[@]}"; do start_peer "$name" "$(port_of "$name")" "$server_cpus"; done
  for name in "${servers[@]}"; do
    wait_ready "$name" answers_http "http://127.0.0.1:$(port_of "$name")/plaintext"
    check_route "$name" /plaintext "$work/plaintext.txt"
    [ "$name" = limit_server ] || check_route "$name" "/static/$static_name" "$work/static/$static_name"
    [ "$name" = limit_server ] || check_route "$name" "/static/$page_name.gz" "$work/static/$page_name.gz"
    [ "$name" = limit_server ] || check_compression "$name"
    check_loopback_only "$name"
  done
  echo "http_bench: all servers answer 200 on every route"
}

# set_wrk_args SERVER SCENARIO: sets the array wrk_args to the URL and script arguments of one run.
set_wrk_args() {
  local base
  base=http://127.0.0.1:$(port_of "$1")
  case $2 in
    plaintext) wrk_args=("$base/plaintext") ;;
    pipelined) wrk_args=(-s "$shared/bench/pipeline.lua" "$base/plaintext" -- "$pipeline_depth") ;;
    static) wrk_args=("$base/static/$static_name") ;;
    download) wrk_args=("$base/static/$download_name") ;;
    gzip_br) wrk_args=(-H "Accept-Encoding: gzip, br" "$base/compress/$page_name") ;;
    gzip) wrk_args=(-H "Accept-Encoding: gzip" "$base/compress/$page_name") ;;
    precompressed) wrk_args=(-H "Accept-Encoding: gzip" "$base/precompressed/$page_name") ;;
    static_gz) wrk_args=("$base/static/$page_name.gz") ;;
  esac
}

# measure SERVER SCENARIO: one wrk run; appends "server scenario rps mean_us p99_us cpu_us errors".
measure() {
  local name=$1 scenario=$2 requests rps mean p99 errors cpu
  local wrk_connections=$connections
  # Why two per worker for downloads: 64 clients sharing loopback's bandwidth would not
  # finish one 100 MiB file each within a short run.
  [ "$scenario" != download ] || wrk_connections=$((workers * 2))
  set_wrk_args "$name" "$scenario"
  run_measured "${pids[$name]}" timeout $((seconds + 30)) taskset -c "$wrk_cpus" \
    wrk -t"$workers" -c"$wrk_connections" -d"${seconds}s" --latency "${wrk_args[@]}" ||
    die_with_log "$name" "wrk failed on $scenario: $measured_output"
  alive "$name" || die_with_log "$name" "died during the $scenario run"
  read -r requests rps mean p99 errors <<<"$(parse_wrk <<<"$measured_output")"
  [ "$requests" -gt 0 ] || die_with_log "$name" "completed no request in the $scenario run: $measured_output"
  cpu=$(cpu_us_per "$measured_ticks" "$requests")
  if [ "$scenario" = pipelined ]; then
    # Why: wrk's latency statistics break with pipelining (see the note in summarize);
    # a closed loop of one batch per connection gives the mean batch time by Little's law.
    mean=$(echo "scale=1; $connections*$pipeline_depth*1000000/$rps" | bc)
    p99=-1
  fi
  echo "$name $scenario $rps $mean $p99 $cpu $errors" >>"$work/results"
  printf '  %-13s %-10s %12.0f req/s  %8s us/req cpu  %d errors\n' "$name" "$scenario" "$rps" "$cpu" "$errors"
}

serves() { [ "$1" != limit_server ] || [ "$2" = plaintext ] || [ "$2" = pipelined ]; }

run_rounds() {
  local round scenario name
  echo "http_bench: warming up"
  for name in "${servers[@]}"; do
    set_wrk_args "$name" plaintext
    timeout 30 taskset -c "$wrk_cpus" wrk -t"$workers" -c"$connections" -d1s "${wrk_args[@]}" >/dev/null
  done
  for ((round = 1; round <= rounds; round++)); do
    echo "http_bench: round $round of $rounds"
    for scenario in "${scenarios[@]}"; do
      for name in "${servers[@]}"; do
        if serves "$name" "$scenario"; then measure "$name" "$scenario"; fi
      done
    done
  done
}

versions() {
  echo "tiffany: $("$build_dir/server/tiffany" --version 2>&1 | head -n 1)"
  echo "nginx: $(nginx -v 2>&1 | head -n 1)"
  echo "h2o: $(h2o --version 2>&1 | head -n 1)"
  echo "wrk: $(wrk -v 2>&1 | head -n 1)"
  echo "kernel: $(uname -r)"
}

# summarize: the averaged table and the ratio lines, on stdout.
summarize() {
  echo "HTTP benchmark: wrk -t$workers -c$connections, $rounds rounds of ${seconds}s per server and scenario" \
    "(pipelined: ${pipeline_depth} requests per write; static: a 4 KiB file; download: a 100 MiB file;" \
    "gzip_br, gzip: a 64 KiB HTML page compressed per request for 'Accept-Encoding: gzip, br' and 'gzip';" \
    "precompressed: its .gz made ahead, for 'gzip'; static_gz: that .gz as a plain static file); $workers worker(s) per server on" \
    "core(s) $server_cpus, wrk on core(s) $wrk_cpus"
  versions | sed 's/^/  /'
  echo "  CPU used by other processes just before the run: ${background_load}%"
  echo "averages over the rounds; errors are summed (socket errors + non-2xx/3xx responses)"
  echo "pipelined latency: wrk's own figures are wrong with pipelining (its coordinated-omission correction"
  echo "  assumes one response per round trip and invents samples below its minimum: p99 prints 0, the mean"
  echo "  drops), so mean_ms there is per ${pipeline_depth}-request batch by Little's law (connections x ${pipeline_depth} / req/s) and p99 is n/a"
  # Columns after the key: 1 req/s, 2 mean_us, 3 p99_us, 4 cpu_us/req, 5 errors.
  report 2 '
    END {
      ns = split(servers, server, " "); nc = split(scenarios, scenario, " ")
      printf "%-13s %-10s %12s %10s %10s %12s %8s\n", "server", "scenario", "req/s", "mean_ms", "p99_ms", "cpu_us/req", "errors"
      for (c = 1; c <= nc; c++) for (s = 1; s <= ns; s++) {
        key = server[s] " " scenario[c]
        if (!n[key]) { printf "%-13s %-10s %12s %10s %10s %12s %8s\n", server[s], scenario[c], "n/a", "n/a", "n/a", "n/a", "n/a"; continue }
        p99_text = avg(key, 3) < 0 ? "n/a" : sprintf("%.3f", avg(key, 3) / 1000)
        printf "%-13s %-10s %12.0f %10.3f %10s %12.3f %8d\n", server[s], scenario[c], avg(key, 1),
               avg(key, 2) / 1000, p99_text, avg(key, 4), total(key, 5)
      }
      print ""
      ratio_line("tiffany cpu/req / nginx cpu/req (plaintext):", avg("tiffany plaintext", 4), avg("nginx plaintext", 4))
      ratio_line("tiffany cpu/req / limit_server cpu/req (plaintext):", avg("tiffany plaintext", 4), avg("limit_server plaintext", 4))
      ratio_line("tiffany req/s / h2o req/s (pipelined x16):", avg("tiffany pipelined", 1), avg("h2o pipelined", 1))
      ratio_line("tiffany req/s / h2o req/s (static 4 KiB):", avg("tiffany static", 1), avg("h2o static", 1))
      ratio_line("tiffany cpu/req / nginx cpu/req (download 100 MiB, CPU per byte):", avg("tiffany download", 4), avg("nginx download", 4))
      ratio_line("tiffany cpu/req / nginx cpu/req (gzip level 5, 64 KiB page):", avg("tiffany gzip", 4), avg("nginx gzip", 4))
      ratio_line("tiffany req/s precompressed / tiffany req/s static 4 KiB:", avg("tiffany precompressed", 1), avg("tiffany static", 1))
      ratio_line("nginx req/s precompressed / nginx req/s static 4 KiB:", avg("nginx precompressed", 1), avg("nginx static", 1))
      ratio_line("tiffany req/s precompressed / tiffany req/s static, same bytes:", avg("tiffany precompressed", 1), avg("tiffany static_gz", 1))
      ratio_line("nginx req/s precompressed / nginx req/s static, same bytes:", avg("nginx precompressed", 1), avg("nginx static_gz", 1))
      ratio_line("tiffany req/s / nginx req/s (precompressed):", avg("tiffany precompressed", 1), avg("nginx precompressed", 1))
    }' "$work/results" servers="${servers[*]}" scenarios="${scenarios[*]}"
  echo ""
  echo "bytes of one response (header + body, one curl request), and the coding sent"
  awk '{key = $1 " " $2; header[key] = $3; body[key] = $4; coding[key] = $5; if (!($1 in seen)) {seen[$1] = 1; order[++n] = $1}}
    END {
      printf "%-13s %-14s %8s %8s %10s %8s\n", "server", "scenario", "coding", "header", "body", "total"
      split("gzip_br gzip precompressed", scenario, " ")
      for (c = 1; c <= 3; c++) for (s = 1; s <= n; s++) {
        key = order[s] " " scenario[c]
        if (key in body) printf "%-13s %-14s %8s %8d %10d %8d\n", order[s], scenario[c], coding[key], header[key], body[key], header[key] + body[key]
      }
      if (body["nginx gzip"] > 0) printf "%-62s %8.4f\n", "tiffany gzip body bytes / nginx gzip body bytes:", body["tiffany gzip"] / body["nginx gzip"]
    }' "$work/bytes"
}

# draw_chart: the library's bar chart of req/s per scenario and server.
draw_chart() {
  chart_data "$work/results" "${servers[*]}" "${scenarios[*]}" \
    "plaintext pipelined_x16 static_4KiB download_100MiB 64KiB_gzip_br 64KiB_gzip 64KiB_precompressed static_same_bytes" >"$work/chart.dat"
  bar_chart "$work/chart.dat" "$png" \
    "HTTP req/s on one server core: wrk -t1 -c$connections on another, ${rounds} x ${seconds}s (log scale)"
}

main() {
  parse_args "$@"
  install_and_build
  bench_work_dir
  make_site
  write_configs
  measure_background_load
  start_servers
  run_rounds
  mkdir -p "$(dirname "$png")"
  summarize | tee "$table"
  draw_chart
  echo "http_bench: chart $png, table $table"
}

main "$@"

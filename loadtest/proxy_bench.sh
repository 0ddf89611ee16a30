#!/usr/bin/env bash
# Reverse-proxy benchmark: wrk -> proxy -> one upstream, with Tiffany (its `proxy` handler),
# nginx (`proxy_pass` to an upstream block with `keepalive`) and HAProxy (`http-reuse always`,
# `option splice-auto`) taking turns as the proxy, round after round, in front of the same
# upstream: one nginx serving a small body (/small, "Hello, World!") and a 1 MiB file (/1m,
# sendfile). Every proxy runs one worker/thread on core 0 and keeps up to 64 idle upstream
# connections;
# wrk -t1 runs on core 1, and the upstream nginx on core 2, or beside wrk on core 1 when
# the machine has two cores.
# Scenarios: small (keep-alive), pipelined (pipeline.lua, 16 requests per write) and 1mib.
# Prints req/s, mean and p99 latency, the proxy's CPU microseconds per request (utime+stime
# from /proc, as ../shared/bench/cpu_per_req.sh does), errors, and how many connections
# the upstream accepted per 1000 requests (near 0: upstream keep-alive works), averaged over
# the rounds, with ratios of Tiffany to nginx and to HAProxy; writes a PNG chart (req/s and
# CPU per request) and the table as text beside it.
# usage: loadtest/proxy_bench.sh [-s PROXIES] [-d SECONDS] [-r ROUNDS] [-c CONNECTIONS] [-p BASE_PORT] [-o PNG]
set -euo pipefail

invocation_dir=$PWD
cd "$(dirname "$0")/.."
root_dir=$PWD
bench_name=proxy_bench
source loadtest/lib/bench.sh

all_proxies=(tiffany tiffany_copy nginx haproxy)
default_proxies=(tiffany nginx haproxy)
scenarios=(small pipelined 1mib)
pipeline_depth=16
upstream_keepalive=64
small_body='Hello, World!'

usage() {
  cat <<EOF
usage: loadtest/proxy_bench.sh [-s PROXIES] [-d SECONDS] [-r ROUNDS] [-c CONNECTIONS] [-p BASE_PORT] [-o PNG]
  -s PROXIES      comma-separated proxies to run, from tiffany,tiffany_copy,nginx,haproxy (default
                  tiffany,nginx,haproxy); tiffany_copy is Tiffany with "splice": false, the control
                  for splicing (bodies copied through user space, as before issue 31)
  -d SECONDS      length of one wrk run, 1..30 (default 5)
  -r ROUNDS       rounds over all proxies and scenarios, 1..5 (default 2); a round is 3 runs per proxy
  -c CONNECTIONS  wrk connections, 1..1024 (default 64)
  -p BASE_PORT    the upstream listens on 127.0.0.1:BASE_PORT+1, the proxies on +2..+5,
                  1024..65000 (default 18280)
  -o PNG          chart path (default loadtest/results/proxy_bench.png); the table goes beside it as .txt
EOF
}

# parse_proxies LIST: sets proxies to LIST's names in the order of all_proxies; dies on an
# unknown or repeated name, or an empty list.
parse_proxies() {
  local name known proxy seen=" "
  local -a given
  IFS=, read -r -a given <<<"$1"
  ((${#given[@]} > 0)) || die "-s needs at least one of ${all_proxies[*]}"
  for name in "${given[@]}"; do
    known=no
    for proxy in "${all_proxies[@]}"; do [ "$name" != "$proxy" ] || known=yes; done
    [ "$known" = yes ] || die "-s: unknown proxy '$name'; known: ${all_proxies[*]}"
    [[ $seen != *" $name "* ]] || die "-s: '$name' is given twice"
    seen="$seen$name "
  done
  proxies=()
  for proxy in "${all_proxies[@]}"; do [[ $seen != *" $proxy "* ]] || proxies+=("$proxy"); done
}

parse_args() {
  seconds=5 rounds=2 connections=64 base_port=18280 png=
  local selection
  selection=$(
    IFS=,
    echo "${default_proxies[*]}"
  )
  parse_options 's=selection d=seconds r=rounds c=connections p=base_port o=/png' "$@"
  parse_proxies "$selection"
  in_range seconds "$seconds" 1 30
  in_range rounds "$rounds" 1 5
  in_range connections "$connections" 1 1024
  in_range base_port "$base_port" 1024 65000
  png=${png:-$root_dir/loadtest/results/proxy_bench.png}
  table=${png%.png}.txt
  (($(nproc) >= 2)) || die "needs at least two cores (proxy on core 0, wrk on core 1)"
  proxy_cpus=0 wrk_cpus=1 upstream_cpus=1
  # Why: on two cores the upstream must share wrk's core; the proxy keeps its own either way.
  (($(nproc) < 3)) || upstream_cpus=2
}

selected() { [[ " ${proxies[*]} " == *" $1 "* ]]; }

install_and_build() {
  [ -f "$shared/bench/pipeline.lua" ] || die "missing $shared/bench/pipeline.lua (set TIFFANY_SHARED to the shared folder)"
  if selected tiffany || selected tiffany_copy; then bench_prepare peers; else bench_prepare peers no_tiffany; fi
  # Why: a proxy asked for must run, or the run stops; it never drops out of the table.
  local proxy
  for proxy in nginx haproxy; do
    ! selected "$proxy" || command -v "$proxy" >/dev/null || die "$proxy is not installed (loadtest/setup_peers.sh installs it)"
  done
  command -v nginx >/dev/null || die "the upstream is nginx, which is not installed (loadtest/setup_peers.sh installs it)"
}

port_of() {
  case $1 in
    nginx_upstream) echo $((base_port + 1)) ;;
    tiffany) echo $((base_port + 2)) ;;
    nginx) echo $((base_port + 3)) ;;
    haproxy) echo $((base_port + 4)) ;;
    tiffany_copy) echo $((base_port + 5)) ;;
  esac
}

# make_site: the upstream's bodies in the temp dir: small.txt and the 1 MiB file.
make_site() {
  mkdir -p "$work/site"
  printf '%s' "$small_body" >"$work/site/small.txt"
  head -c $((1024 * 1024)) /dev/urandom >"$work/site/1m"
  [ "$(stat -c %s "$work/site/1m")" -eq $((1024 * 1024)) ] || die "could not make the 1 MiB file"
}

# write_configs: the upstream nginx (nginx_upstream: `return 200` for /small, sendfile for
# /1m, stub_status for the count of accepted connections) and each selected proxy.
write_configs() {
  write_nginx_conf 1 4096 "" nginx_upstream <<CONF
  default_type application/octet-stream;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_timeout 65;
  keepalive_requests 1000000000;
  server {
    listen 127.0.0.1:$(port_of nginx_upstream) backlog=4096;
    location = /small { default_type text/plain; return 200 "$small_body"; }
    location = /1m { root $work/site; }
    location = /upstream_status { stub_status; }
  }
CONF
  local proxy
  for proxy in "${proxies[@]}"; do
    case $proxy in
      tiffany) write_tiffany_proxy_conf "$(port_of tiffany)" "$(port_of nginx_upstream)" "$upstream_keepalive" ;;
      tiffany_copy)
        # Why moved: write_tiffany_conf always writes tiffany.json, which `tiffany` may need too.
        [ ! -f "$work/tiffany.json" ] || mv "$work/tiffany.json" "$work/tiffany.json.keep"
        write_tiffany_proxy_conf "$(port_of tiffany_copy)" "$(port_of nginx_upstream)" "$upstream_keepalive" ', "splice": false'
        mv "$work/tiffany.json" "$work/tiffany_copy.json"
        [ ! -f "$work/tiffany.json.keep" ] || mv "$work/tiffany.json.keep" "$work/tiffany.json"
        ;;
      nginx) write_nginx_proxy_conf "$(port_of nginx)" "$(port_of nginx_upstream)" "$upstream_keepalive" ;;
      haproxy) write_haproxy_conf "$(port_of haproxy)" "$(port_of nginx_upstream)" "$upstream_keepalive" ;;
    esac
  done
}

start_servers() {
  local name
  start_peer nginx_upstream "$(port_of nginx_upstream)" "$upstream_cpus"
  wait_ready nginx_upstream answers_http "http://127.0.0.1:$(port_of nginx_upstream)/small"
  check_route nginx_upstream /small "$work/site/small.txt"
  check_loopback_only nginx_upstream
  for name in "${proxies[@]}"; do start_peer "$name" "$(port_of "$name")" "$proxy_cpus"; done
  for name in "${proxies[@]}"; do
    wait_ready "$name" answers_http "http://127.0.0.1:$(port_of "$name")/small"
    check_route "$name" /small "$work/site/small.txt"
    check_route "$name" /1m "$work/site/1m"
    check_loopback_only "$name"
  done
  echo "proxy_bench: the upstream and every proxy (${proxies[*]}) answer 200 with the right bodies"
}

# upstream_accepts: how many connections the upstream nginx has accepted so far (stub_status).
upstream_accepts() {
  local status
  status=$(curl -sS --max-time 5 "http://127.0.0.1:$(port_of nginx_upstream)/upstream_status") ||
    die_with_log nginx_upstream "could not read its stub_status"
  awk 'previous ~ /accepts/ {print $1; exit} {previous = $0}' <<<"$status"
}

# set_wrk_args PROXY SCENARIO: sets the array wrk_args to the URL and script arguments of one run.
set_wrk_args() {
  local base
  base=http://127.0.0.1:$(port_of "$1")
  case $2 in
    small) wrk_args=("$base/small") ;;
    pipelined) wrk_args=(-s "$shared/bench/pipeline.lua" "$base/small" -- "$pipeline_depth") ;;
    1mib) wrk_args=("$base/1m") ;;
  esac
}

# measure PROXY SCENARIO: one wrk run; appends
# "proxy scenario rps mean_us p99_us cpu_us errors upstream_accepts_per_1000" to results.
measure() {
  local name=$1 scenario=$2 requests rps mean p99 errors cpu accepts_before accepts
  set_wrk_args "$name" "$scenario"
  accepts_before=$(upstream_accepts)
  run_measured "${pids[$name]}" timeout $((seconds + 30)) taskset -c "$wrk_cpus" \
    wrk -t1 -c"$connections" -d"${seconds}s" --latency "${wrk_args[@]}" ||
    die_with_log "$name" "wrk failed on $scenario: $measured_output"
  alive "$name" || die_with_log "$name" "died during the $scenario run"
  alive nginx_upstream || die_with_log nginx_upstream "died during $name's $scenario run"
  # Why minus one: reading stub_status opens one connection of its own.
  accepts=$(($(upstream_accepts) - accepts_before - 1))
  read -r requests rps mean p99 errors <<<"$(parse_wrk <<<"$measured_output")"
  [ "$requests" -gt 0 ] || die_with_log "$name" "completed no request in the $scenario run: $measured_output"
  cpu=$(cpu_us_per "$measured_ticks" "$requests")
  if [ "$scenario" = pipelined ]; then
    # Why: wrk's latency statistics break with pipelining (see http_bench.sh); a closed loop
    # of one batch per connection gives the mean batch time by Little's law.
    mean=$(echo "scale=1; $connections*$pipeline_depth*1000000/$rps" | bc)
    p99=-1
  fi
  echo "$name $scenario $rps $mean $p99 $cpu $errors $(echo "scale=3; $accepts*1000/$requests" | bc)" >>"$work/results"
  printf '  %-12s %-10s %10.0f req/s  %8s us/req cpu  %d errors  %d upstream connections opened\n' \
    "$name" "$scenario" "$rps" "$cpu" "$errors" "$accepts"
}

run_rounds() {
  local round scenario name
  echo "proxy_bench: warming up (opens the proxies' upstream connections)"
  for name in "${proxies[@]}"; do
    set_wrk_args "$name" small
    timeout 30 taskset -c "$wrk_cpus" wrk -t1 -c"$connections" -d1s "${wrk_args[@]}" >/dev/null
  done
  for ((round = 1; round <= rounds; round++)); do
    echo "proxy_bench: round $round of $rounds"
    for scenario in "${scenarios[@]}"; do
      for name in "${proxies[@]}"; do measure "$name" "$scenario"; done
    done
  done
}

versions() {
  ! selected tiffany && ! selected tiffany_copy || echo "tiffany: $("$build_dir/server/tiffany" --version 2>&1 | head -n 1)"
  echo "nginx (upstream$(selected nginx && echo ', proxy')): $(nginx -v 2>&1 | head -n 1)"
  ! selected haproxy || echo "haproxy: $(haproxy -v 2>&1 | head -n 1)"
  echo "wrk: $(wrk -v 2>&1 | head -n 1)"
  echo "kernel: $(uname -r)"
}

# summarize: the averaged table and the ratio lines, on stdout.
summarize() {
  echo "Reverse-proxy benchmark: wrk -t1 -c$connections -> proxy -> nginx, $rounds rounds of ${seconds}s per proxy" \
    "and scenario (small: '$small_body' keep-alive; pipelined: ${pipeline_depth} requests per write; 1mib: a 1 MiB body);" \
    "proxies: ${proxies[*]}, one worker each on core $proxy_cpus, up to $upstream_keepalive idle upstream connections;" \
    "wrk on core $wrk_cpus, the upstream nginx (one worker) on core $upstream_cpus"
  versions | sed 's/^/  /'
  echo "  CPU used by other processes just before the run: ${background_load}%"
  echo "averages over the rounds; errors are summed (socket errors + non-2xx/3xx responses);"
  echo "cpu_us/req is the proxy's own CPU; up_conn/1k: connections the upstream accepted per 1000 requests"
  echo "pipelined: mean_ms is per ${pipeline_depth}-request batch by Little's law (wrk's latency is wrong with pipelining), p99 n/a"
  # Columns after the key: 1 req/s, 2 mean_us, 3 p99_us, 4 cpu_us/req, 5 errors, 6 upstream accepts per 1000.
  report 2 '
    function both(a, b) { return n[a] && n[b] }
    function line(label, a, b, column) {
      if (both(a, b)) ratio_line(label, avg(a, column), avg(b, column)); else printf "%-62s %8s\n", label, "n/a"
    }
    END {
      np = split(proxies, proxy, " "); nc = split(scenarios, scenario, " ")
      printf "%-12s %-10s %10s %9s %9s %11s %7s %10s\n", "proxy", "scenario", "req/s", "mean_ms", "p99_ms", "cpu_us/req", "errors", "up_conn/1k"
      for (c = 1; c <= nc; c++) for (p = 1; p <= np; p++) {
        key = proxy[p] " " scenario[c]
        p99_text = avg(key, 3) < 0 ? "n/a" : sprintf("%.3f", avg(key, 3) / 1000)
        printf "%-12s %-10s %10.0f %9.3f %9s %11.3f %7d %10.3f\n", proxy[p], scenario[c], avg(key, 1),
               avg(key, 2) / 1000, p99_text, avg(key, 4), total(key, 5), avg(key, 6)
      }
      print ""
      for (c = 1; c <= nc; c++) {
        line("tiffany cpu/req / nginx cpu/req (" scenario[c] "):", "tiffany " scenario[c], "nginx " scenario[c], 4)
        line("tiffany cpu/req / haproxy cpu/req (" scenario[c] "):", "tiffany " scenario[c], "haproxy " scenario[c], 4)
        line("tiffany req/s / nginx req/s (" scenario[c] "):", "tiffany " scenario[c], "nginx " scenario[c], 1)
        line("tiffany req/s / haproxy req/s (" scenario[c] "):", "tiffany " scenario[c], "haproxy " scenario[c], 1)
      }
      for (c = 1; c <= nc; c++) {
        line("tiffany_copy cpu/req / nginx cpu/req (" scenario[c] "):", "tiffany_copy " scenario[c], "nginx " scenario[c], 4)
        line("tiffany_copy cpu/req / haproxy cpu/req (" scenario[c] "):", "tiffany_copy " scenario[c], "haproxy " scenario[c], 4)
        line("tiffany cpu/req / tiffany_copy cpu/req (" scenario[c] "):", "tiffany " scenario[c], "tiffany_copy " scenario[c], 4)
      }
      line("haproxy cpu/req / nginx cpu/req (small):", "haproxy small", "nginx small", 4)
    }' "$work/results" proxies="${proxies[*]}" scenarios="${scenarios[*]}"
}

# chart_data: one row per scenario; per proxy a column of average req/s, then one of cpu_us/req.
chart_data() {
  report 2 '
    END {
      np = split(proxies, proxy, " "); nc = split(scenarios, scenario, " ")
      label["small"] = "small_keepalive"; label["pipelined"] = "pipelined_x16"; label["1mib"] = "1MiB_body"
      printf "scenario"; for (p = 1; p <= np; p++) printf " %s", proxy[p]; for (p = 1; p <= np; p++) printf " %s", proxy[p]; print ""
      for (c = 1; c <= nc; c++) {
        printf "%s", label[scenario[c]]
        for (p = 1; p <= np; p++) printf " %.0f", avg(proxy[p] " " scenario[c], 1)
        for (p = 1; p <= np; p++) printf " %.2f", avg(proxy[p] " " scenario[c], 4)
        print ""
      }
    }' "$work/results" proxies="${proxies[*]}" scenarios="${scenarios[*]}"
}

# draw_chart: two panels, req/s and the proxy's CPU per request, both on log scales (a 1 MiB
# body costs a hundred times a small one).
draw_chart() {
  local count=${#proxies[@]} top_rps top_cpu low_cpu colors="" proxy
  chart_data >"$work/chart.dat"
  # Why fixed colours: a proxy keeps its colour whichever others -s leaves out.
  for proxy in "${proxies[@]}"; do
    case $proxy in
      tiffany) colors+=" #1f77b4" ;;
      tiffany_copy) colors+=" #9ecae1" ;;
      nginx) colors+=" #2ca02c" ;;
      haproxy) colors+=" #d62728" ;;
    esac
  done
  read -r top_rps top_cpu low_cpu < <(awk -v count="$count" 'NR > 1 {
      for (i = 2; i <= count + 1; i++) if ($i > rps) rps = $i
      for (i = count + 2; i <= 2 * count + 1; i++) { if ($i > cpu) cpu = $i; if (low == "" || $i < low) low = $i }
    } END {print rps * 3, cpu * 3, low / 3}' "$work/chart.dat")
  # Why: a clustered histogram puts bar i (0-based) of row r at r + (i - (count-1)/2) / (count + gap).
  gnuplot <<PLOT
set terminal pngcairo size 1200,550 font "sans,11"
set output "$png"
set termoption noenhanced
set multiplot layout 1,2 title "Reverse proxy on core $proxy_cpus, wrk -t1 -c$connections on core $wrk_cpus, upstream nginx on core $upstream_cpus, ${rounds} x ${seconds}s"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set xrange [-0.6:$((${#scenarios[@]} - 1)).6]
set grid ytics
set key top right autotitle columnheader
offset(i) = (i - ($count - 1) / 2.0) / ($count + 1.0)
colors = "$colors"
set title "requests per second (higher is better)"
set yrange [100:$top_rps]
plot for [column = 2:$((count + 1))] "$work/chart.dat" using column:xtic(1) lc rgb word(colors, column - 1), \
     for [column = 2:$((count + 1))] "$work/chart.dat" \
       using (\$0 + offset(column - 2)):column:(sprintf("%.1fk", column(column) / 1000)) \
       with labels offset 0,0.7 font "sans,8" notitle
set title "proxy CPU microseconds per request (lower is better)"
set yrange [$low_cpu:$top_cpu]
plot for [column = $((count + 2)):$((2 * count + 1))] "$work/chart.dat" using column:xtic(1) lc rgb word(colors, column - $count - 1), \
     for [column = $((count + 2)):$((2 * count + 1))] "$work/chart.dat" \
       using (\$0 + offset(column - $count - 2)):column:(sprintf("%.1f", column(column))) \
       with labels offset 0,0.7 font "sans,8" notitle
unset multiplot
PLOT
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
  echo "proxy_bench: chart $png, table $table"
}

main "$@"

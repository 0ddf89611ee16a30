# loadtest/lib/measure.sh: how a benchmark measures a server: CPU ticks from /proc, CPU
# microseconds per request, RSS, the machine's background load, and the load clients'
# output (wrk's, h2load's, and the key=value line of loadtest's own clients).
# Sourced by loadtest/*.sh with loadtest/lib/peers.sh (for die and bench_name).
# shellcheck shell=bash
: "${bench_name:?the benchmark script sets bench_name before it sources the library}"

# cpu_ticks PID: user+system ticks of PID and its children (nginx's workers under a master).
cpu_ticks() {
  local pid total=0 ticks
  for pid in "$1" $(pgrep -P "$1" || true); do
    ticks=$(awk '{print $14+$15}' "/proc/$pid/stat" 2>/dev/null) && total=$((total + ticks))
  done
  echo "$total"
}

# run_measured PID COMMAND...: runs COMMAND; sets measured_output to its standard output and
# measured_ticks to the CPU ticks PID (and its children) spent meanwhile. Returns COMMAND's status.
# shellcheck disable=SC2034  # measured_output and measured_ticks are the caller's to read
run_measured() {
  local pid=$1 before status=0
  shift
  before=$(cpu_ticks "$pid")
  measured_output=$("$@") || status=$?
  measured_ticks=$(($(cpu_ticks "$pid") - before))
  return "$status"
}

# cpu_us_per TICKS COUNT [SCALE]: microseconds of CPU per unit of work (bc, SCALE decimals, default 4).
cpu_us_per() {
  echo "scale=${3:-4}; $1*1000000/$(getconf CLK_TCK)/$2" | bc
}

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# client_field NAME OUTPUT: the value of NAME=... in the one-line report of loadtest's clients.
client_field() { sed -E "s/.*(^| )$1=([0-9.]+).*/\\2/" <<<"$2"; }

# measure_background_load: sets background_load to the share of both cores that other
# processes use over one second; above 10% it warns, since the numbers get noisy.
measure_background_load() {
  local before after
  before=$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6}' /proc/stat)
  sleep 1
  after=$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6}' /proc/stat)
  background_load=$(awk -v before="$before" -v after="$after" 'BEGIN {
    split(before, b, " "); split(after, a, " ")
    busy = a[1] - b[1]; idle = a[2] - b[2]
    printf "%.0f", (busy + idle > 0) ? 100 * busy / (busy + idle) : 0}')
  if ((background_load > 10)); then
    echo "$bench_name: warning: other processes use ${background_load}% of the CPUs; the numbers will be noisy:" >&2
    ps -eo pid,pcpu,comm --sort=-pcpu | head -n 4 >&2
  fi
}

# The awk function both parsers use: us(TEXT) turns "160us", "2.41ms", "1.5s", "2m" into microseconds.
awk_microseconds='function us(text,   value) {
    value = text + 0
    if (text ~ /us$/) return value
    if (text ~ /ms$/) return value * 1000
    if (text ~ /m$/) return value * 60000000
    if (text ~ /s$/) return value * 1000000
    return value
  }'

# parse_wrk: wrk output (with or without --latency) on stdin -> "requests rps mean_us p99_us errors".
parse_wrk() {
  awk "$awk_microseconds"'
       /requests in/ {requests = $1}
       /Requests\/sec/ {rps = $2}
       $1 == "Latency" && $2 != "Distribution" {mean = us($2)}
       $1 == "99%" {p99 = us($2)}
       /Socket errors/ {gsub(",", ""); errors += $4 + $6 + $8 + $10}
       /Non-2xx or 3xx/ {errors += $NF}
       END {printf "%d %s %.1f %.1f %d\n", requests, rps, mean, p99, errors}'
}

# parse_h2load: h2load output on stdin -> "requests rps mean_us p99_us errors protocol": requests
# succeeded (2xx, 3xx), req/s, mean time per request, p99 as -1 (h2load gives none), errors (requests
# done that did not succeed: failed, errored, timed out or 4xx/5xx) and the application protocol
# it spoke ("h2", "h2c", "http/1.1"; "none" when it printed none, e.g. no connection succeeded).
parse_h2load() {
  awk "$awk_microseconds"'
       BEGIN {protocol = "none"}
       /^Application protocol:/ {protocol = $3}
       /^finished in/ {rps = $4}
       /^requests:/ {done = $6; requests = $8}
       /^time for request:/ {mean = us($6)}
       END {printf "%d %s %.1f -1 %d %s\n", requests, rps + 0, mean, done - requests, protocol}'
}

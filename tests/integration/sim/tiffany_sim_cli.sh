#!/usr/bin/env bash
# tiffany-sim's command line: --list names every scenario first on its line; one seed run twice
# prints the same line (the same trace hash) and another seed another; a range of seeds passes;
# --budget runs its share of a scenario's budget;
# --trace prints the events; bad arguments are refused with the usage and exit 2. (A failing
# seed's report and replay line: SimScenarioTest, over print_run.)
# usage: tiffany_sim_cli.sh TIFFANY_SIM
set -euo pipefail
sim=$1
fail() { echo "tiffany_sim_cli: $*"; exit 1; }

list=$("$sim" --list)
for name in http1 drain http2 websocket mixed_drain; do
  grep -q "^$name " <<<"$list" || fail "--list does not name $name first on a line: $list"
done

first=$("$sim" --scenario http1 --seed 4242)
second=$("$sim" --scenario http1 --seed 4242)
grep -q "^scenario http1 seed 4242: ok, trace hash [0-9a-f]\{16\}, " <<<"$first" || fail "one seed's line: $first"
[ "$first" = "$second" ] || fail "seed 4242 ran twice differently:
$first
$second"
other=$("$sim" --scenario http1 --seed 4243)
[ "${first#*trace hash }" != "${other#*trace hash }" ] || fail "seeds 4242 and 4243 gave the same run"

"$sim" --scenario drain --seeds 1-5 >/dev/null || fail "--seeds 1-5 of drain failed"
budget=$("$sim" --scenario http2 --budget 1)
runs=$(grep -c "^scenario http2 seed [0-9]*: ok" <<<"$budget")
[ "$runs" -eq 8 ] || fail "--budget 1 of http2 (800 seeds) ran $runs seeds, not 8: $budget"

trace_lines=$("$sim" --scenario http1 --seed 3 --trace | wc -l)
[ "$trace_lines" -gt 100 ] || fail "--trace printed $trace_lines lines"

for bad in "--scenario nope --seed 1" "--seed x --scenario http1" "--seeds 5-1" "--bogus" "--scenario http1" \
  "--budget 0" "--budget 101" "--budget --seeds 1-2"; do
  set +e
  out=$("$sim" $bad 2>&1)
  status=$?
  set -e
  [ "$status" -eq 2 ] || fail "\"$bad\" exited $status, not 2"
  grep -q "^usage: tiffany-sim" <<<"$out" || fail "\"$bad\" did not print the usage: $out"
done
echo "tiffany-sim: --list, one hash per seed, ranges, --trace and bad arguments as documented"

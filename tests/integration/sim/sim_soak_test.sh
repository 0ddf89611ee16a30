#!/usr/bin/env bash
# scripts/sim_soak.sh: a soak of no time still runs one range of every scenario on
# seeds from the clock and says how it went (exit 0, no failing seed); bad
# arguments and a missing build exit 2 with the usage or the reason.
# usage: sim_soak_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
soak=$1/scripts/sim_soak.sh
build=$2
fail() { echo "sim_soak_test: $*"; exit 1; }

scenarios=$("$build/sim/tiffany-sim" --list | wc -l)
out=$(SIM_SOAK_RANGE=1 "$soak" 0 "$build")
grep -q "^sim_soak: $scenarios runs of seeds [0-9]* to [0-9]*, 0 failing$" <<<"$out" || fail "one range: $out"

for bad in "x" "1 $build extra" ""; do
  set +e
  out=$("$soak" $bad 2>&1)
  status=$?
  set -e
  [ "$status" -eq 2 ] || fail "\"$bad\" exited $status, not 2"
  grep -q "^usage: scripts/sim_soak.sh" <<<"$out" || fail "\"$bad\" did not print the usage: $out"
done
set +e
out=$("$soak" 1 /nonexistent 2>&1)
status=$?
set -e
[ "$status" -eq 2 ] && grep -q "is not built" <<<"$out" || fail "a missing build: exit $status: $out"
echo "sim_soak: one range of every scenario, bad arguments and a missing build as documented"

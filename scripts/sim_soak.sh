#!/usr/bin/env bash
# Runs every simulation scenario on seeds drawn from the clock for HOURS (a
# fraction is fine: 0.5), one range of seeds after another, and prints each
# failing seed's report and the command that replays it. Exits 1 if any seed
# failed, 0 if none did, 2 on a bad argument or a missing build.
# usage: scripts/sim_soak.sh HOURS [BUILD_DIR]   (BUILD_DIR: build, as scripts/build.sh makes it)
# SIM_SOAK_RANGE: seeds per range and scenario (default 500); a range is
# never cut short, so a soak ends within one range's time of HOURS.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: scripts/sim_soak.sh HOURS [BUILD_DIR]" >&2
  exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
hours=$1
[[ $hours =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "sim_soak: HOURS is a number, not \"$hours\"" >&2; usage; }
range=${SIM_SOAK_RANGE:-500}
[[ $range =~ ^[1-9][0-9]*$ ]] || { echo "sim_soak: SIM_SOAK_RANGE is a count, not \"$range\"" >&2; usage; }
sim=${2:-build}/sim/tiffany-sim
[ -x "$sim" ] || { echo "sim_soak: $sim is not built (scripts/build.sh builds it)" >&2; exit 2; }

ends_at=$(( $(date +%s) + $(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 }') ))
# Why from the clock, in microseconds: each soak draws seeds no earlier one
# ran, and CI's budget (seeds 1 to a few thousand) stays far below them.
first=$(( $(date +%s%N) / 1000 ))
runs=0
failing=0
next=$first
while :; do
  last=$((next + range - 1))
  report=$("$sim" --seeds "$next-$last") && status=0 || status=$?
  [ "$status" -le 1 ] || { echo "$report"; echo "sim_soak: tiffany-sim ended with $status" >&2; exit 2; }
  runs=$((runs + $(grep -c '^scenario ' <<<"$report")))
  failed_here=$(grep -c '^scenario .*: FAILED' <<<"$report" || true)
  if [ "$failed_here" -gt 0 ]; then
    failing=$((failing + failed_here))
    # A failure's lines: its report, what failed, the server's log, the replay command.
    awk '/^scenario .*: FAILED/ { keep = 1; print; next } /^scenario / { keep = 0 } keep && /^  / { print }' <<<"$report"
  fi
  next=$((last + 1))
  [ "$(date +%s)" -lt "$ends_at" ] || break
done
echo "sim_soak: $runs runs of seeds $first to $((next - 1)), $failing failing"
[ "$failing" -eq 0 ]

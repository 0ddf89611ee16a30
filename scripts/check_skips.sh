#!/usr/bin/env bash
# Reads CTest's output on stdin and fails if a test skipped that
# tests/documented_skips.txt does not allow in this build.
# Usage: ctest ... | tee log; scripts/check_skips.sh "$TIFFANY_SANITIZE" < log
set -euo pipefail
sanitize=${1:-}
allowed_list="$(dirname "$0")/../tests/documented_skips.txt"

allowed() {  # allowed TEST: is TEST listed for this build?
  local build pattern
  while read -r build pattern _; do
    [[ -z $build || $build == \#* ]] && continue
    case $build in
      sanitized) [[ -n $sanitize ]] || continue ;;
      thread) [[ $sanitize == *thread* ]] || continue ;;
      *) echo "check_skips: unknown build \"$build\" in $allowed_list" >&2; return 2 ;;
    esac
    # shellcheck disable=SC2053  # the pattern is a glob on purpose
    [[ $1 == $pattern ]] && return 0
  done <"$allowed_list"
  return 1
}

undocumented=0
while read -r test; do
  if ! allowed "$test"; then
    echo "check_skips: $test skipped, and tests/documented_skips.txt does not allow it in this build" >&2
    undocumented=$((undocumented + 1))
  fi
done < <(sed -nE 's/^[[:space:]]*[0-9]+ - ([^ ]+) \(Skipped\)$/\1/p')

if ((undocumented > 0)); then
  echo "check_skips: $undocumented undocumented skip(s): a skip is not a pass" >&2
  exit 1
fi

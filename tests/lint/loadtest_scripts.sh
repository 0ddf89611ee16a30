#!/usr/bin/env bash
# Checks the benchmark scripts and their library (loadtest/*.sh, loadtest/lib/*.sh)
# without running them: bash -n on each, and shellcheck (following the sourced
# library) when it is installed.
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
scripts=(loadtest/*.sh loadtest/lib/*.sh)
for script in "${scripts[@]}"; do bash -n "$script"; done
if command -v shellcheck >/dev/null; then
  shellcheck -x -S warning "${scripts[@]}"
  echo "loadtest_scripts: bash -n and shellcheck passed on ${#scripts[@]} scripts"
else
  echo "loadtest_scripts: bash -n passed on ${#scripts[@]} scripts (shellcheck is not installed)"
fi

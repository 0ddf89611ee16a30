#!/usr/bin/env bash
# Compares the plugin SDK's binary interface with the baseline of its plugin
# ABI number, abi/plugin-abi-N.dump.gz: abi-dumper reads the tiffany
# executable's symbols and types declared in the installed SDK headers, and
# abi-compliance-checker fails the run on any binary incompatibility.
#
# The rule (handlers/plugin_api.hpp, cmake/exported_symbols.sh): a change
# that breaks a plugin built for ABI N bumps kPluginAbiNumber, and the bump
# starts a new baseline with --update. Each baseline is the interface of the
# last commit that declared its number; CI holds every later commit to it.
# Usage: scripts/abi_check.sh [--update] [BUILD_DIR]   (default build/, built)
set -euo pipefail
cd "$(dirname "$0")/.."

update=false
if [ "${1:-}" = "--update" ]; then
  update=true
  shift
fi
build_dir=${1:-build}
scripts/install_missing.sh abi abi-dumper abi-compliance-checker

number=$(sed -n 's/.*kPluginAbiNumber = \([0-9]*\);.*/\1/p' handlers/plugin_api.hpp)
[ -n "$number" ] || { echo "abi_check: no kPluginAbiNumber in handlers/plugin_api.hpp" >&2; exit 1; }
baseline=abi/plugin-abi-$number.dump.gz

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/sdk" >/dev/null
abi-dumper "$build_dir/server/tiffany" -o "$work/current.dump" -lver "$number" \
  -public-headers "$work/sdk/include/tiffany" >"$work/dumper.log" 2>&1 ||
  { cat "$work/dumper.log" >&2; exit 1; }

if $update; then
  mkdir -p "$(dirname "$baseline")"
  gzip -9 -n -c "$work/current.dump" >"$baseline"
  echo "abi_check: wrote $baseline, the baseline of plugin ABI $number"
  exit 0
fi
if [ ! -f "$baseline" ]; then
  echo "abi_check: no baseline for plugin ABI $number ($baseline): a bump of kPluginAbiNumber starts one with" \
       "scripts/abi_check.sh --update" >&2
  exit 1
fi
gunzip -c "$baseline" >"$work/baseline.dump"
report=$build_dir/abi-report.html
if abi-compliance-checker -l tiffany -old "$work/baseline.dump" -new "$work/current.dump" \
     -binary -report-path "$report" >"$work/checker.log" 2>&1; then
  echo "abi_check: the SDK is binary compatible with plugin ABI $number's baseline ($baseline)"
else
  grep -E 'compatibility|problems' "$work/checker.log" >&2 || cat "$work/checker.log" >&2
  echo "abi_check: the SDK breaks plugins built for ABI $number (report: $report); bump kPluginAbiNumber" \
       "in handlers/plugin_api.hpp and start its baseline with scripts/abi_check.sh --update" >&2
  exit 1
fi

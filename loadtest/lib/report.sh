# loadtest/lib/report.sh: the ratio table. Benchmarks append one row per run to a results
# file ("KEY... VALUE...") and report it with one awk END block over rows grouped by key.
# Sourced by loadtest/*.sh.
# shellcheck shell=bash

# report KEY_FIELDS PROGRAM FILE [NAME=VALUE...]: runs awk PROGRAM (its END block) over
# FILE, whose rows are grouped by their first KEY_FIELDS fields (joined by a space).
# PROGRAM may use:
#   n[key]              the rows of key (0: none)
#   avg(key, column)    the mean of value column (1 = the first field after the key)
#   total(key, column)  its sum
#   ratio(a, b)         a / b as "%.3f", or "n/a" when b is not positive
#   ratio_line(label, a, b)  "label  ratio" in the width of http_bench's table
#   order[i], keys      the keys in the order first seen, and how many
# NAME=VALUE operands set awk variables before FILE is read (not in BEGIN).
report() {
  local key_fields=$1 program=$2 file=$3
  shift 3
  awk -v key_fields="$key_fields" '
    {
      key = $1
      for (i = 2; i <= key_fields; i++) key = key " " $i
      if (!(key in n)) order[++keys] = key
      n[key]++
      for (i = key_fields + 1; i <= NF; i++) sum[key, i - key_fields] += $i
    }
    function avg(key, column) { return n[key] ? sum[key, column] / n[key] : 0 }
    function total(key, column) { return sum[key, column] }
    function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "n/a" }
    function ratio_line(label, a, b) { printf "%-62s %8s\n", label, ratio(a, b) }
    '"$program" "$@" "$file"
}

# loadtest/lib/report.sh: the ratio table and the bar chart. Benchmarks append one row per run to a results
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

# chart_data FILE SERVERS SCENARIOS [LABELS]: the input of bar_chart from a results FILE keyed
# "server scenario" whose first value is req/s: a header row ("scenario" and the SERVERS), then
# one row per scenario (named by LABELS, space-separated, in the scenarios' order; default the
# scenarios) with each server's average req/s, or "n/a" where it has none.
chart_data() {
  report 2 '
    END {
      ns = split(servers, server, " "); nc = split(scenarios, scenario, " ")
      if (split(labels, label, " ") != nc) split(scenarios, label, " ")
      printf "scenario"; for (s = 1; s <= ns; s++) printf " %s", server[s]; print ""
      for (c = 1; c <= nc; c++) {
        printf "%s", label[c]
        for (s = 1; s <= ns; s++) {
          key = server[s] " " scenario[c]
          if (n[key]) printf " %.0f", avg(key, 1); else printf " n/a"
        }
        print ""
      }
    }' "$1" servers="$2" scenarios="$3" labels="${4:-}"
}

# bar_chart DATA PNG TITLE: a clustered bar chart (PNG, gnuplot) of chart_data's DATA: one
# cluster per scenario, one bar per server labelled in thousands, req/s on a log scale from the
# power of ten below the smallest bar (at most 1000).
bar_chart() {
  local data=$1 png=$2 title=$3 count rows top bottom
  count=$(($(head -n 1 "$data" | wc -w) - 1))
  rows=$(($(wc -l <"$data") - 1))
  top=$(awk 'NR > 1 {for (i = 2; i <= NF; i++) if ($i != "n/a" && $i > max) max = $i} END {print max * 3}' "$data")
  bottom=$(awk 'BEGIN {low = 1000}
    NR > 1 {for (i = 2; i <= NF; i++) if ($i != "n/a" && $i > 0 && $i < low) low = $i}
    END {bottom = 1; while (bottom * 10 <= low) bottom *= 10; print bottom}' "$data")
  # Why: a clustered histogram puts bar i (0-based) of row r at r + (i - (count-1)/2) / (count + gap).
  gnuplot <<PLOT
set terminal pngcairo size 1000,600 font "sans,11"
set output "$png"
set termoption noenhanced
set title "$title"
set datafile missing "n/a"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set yrange [$bottom:$top]
set xrange [-0.6:$((rows - 1)).6]
set ylabel "requests per second"
set grid ytics
set key top left autotitle columnheader
offset(i) = (i - ($count - 1) / 2.0) / ($count + 1.0)
plot for [column = 2:$((count + 1))] "$data" using column:xtic(1), \
     for [column = 2:$((count + 1))] "$data" \
       using (\$0 + offset(column - 2)):column:(column(column) < 1000 ? sprintf("%.0f", column(column)) : sprintf("%.0fk", column(column) / 1000)) \
       with labels offset 0,0.7 font "sans,8" notitle
PLOT
}

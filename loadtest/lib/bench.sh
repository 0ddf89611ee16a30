# loadtest/lib/bench.sh: the benchmark library in one line: `source loadtest/lib/bench.sh`
# from the repository root, after setting bench_name (the prefix of the script's messages).
# peers.sh starts and stops the peers, measure.sh measures them, report.sh prints the table,
# options.sh reads the script's command line.
# shellcheck shell=bash
source loadtest/lib/peers.sh
source loadtest/lib/options.sh
source loadtest/lib/measure.sh
source loadtest/lib/report.sh

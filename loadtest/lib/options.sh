# loadtest/lib/options.sh: the command line of the benchmark scripts, one shape for all: each
# script names its options as LETTER=VARIABLE pairs, parse_options stores what is given (-h prints
# the script's usage), and in_range checks the integer ones.
# Sourced by loadtest/*.sh through loadtest/lib/bench.sh (after peers.sh, for die).
# shellcheck shell=bash

# parse_options 'SPEC...' ARGS...: reads ARGS by getopts; every option takes a value, and each
# SPEC (space-separated) names one: LETTER=VARIABLE stores the value in VARIABLE,
# LETTER=/VARIABLE stores it as a path made absolute against the directory the script was
# started in ($invocation_dir, which the script sets before it changes directory). -h prints the
# script's `usage` and exits 0; an unknown option, a missing value or any operand prints the
# usage to stderr and exits 2. Set the defaults before; check the values after.
parse_options() {
  local specs=$1 letters="" spec option variable OPTARG OPTIND=1
  shift
  for spec in $specs; do letters+="${spec%%=*}:"; done
  while getopts "${letters}h" option; do
    case $option in
      h) usage && exit 0 ;;
      \?) usage >&2 && exit 2 ;;
    esac
    for spec in $specs; do
      [ "${spec%%=*}" = "$option" ] || continue
      variable=${spec#*=}
      if [[ $variable != /* ]]; then
        printf -v "$variable" '%s' "$OPTARG"
      elif [[ $OPTARG == /* ]]; then
        printf -v "${variable#/}" '%s' "$OPTARG"
      else
        printf -v "${variable#/}" '%s' "${invocation_dir:?the script sets invocation_dir}/$OPTARG"
      fi
    done
  done
  shift $((OPTIND - 1))
  [ $# -eq 0 ] || { usage >&2 && exit 2; }
}

# in_range NAME VALUE LOW HIGH: dies unless VALUE is an integer in [LOW, HIGH].
in_range() {
  if [[ ! $2 =~ ^[1-9][0-9]{0,5}$ ]] || (($2 < $3 || $2 > $4)); then
    die "$1 must be an integer from $3 to $4, got '$2'"
  fi
}

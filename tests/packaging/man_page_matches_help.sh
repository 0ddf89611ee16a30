#!/usr/bin/env bash
# Checks packaging/man/tiffany.8: it renders without a groff warning, and it
# documents every option `tiffany --help` lists (so the two cannot drift).
#   man_page_matches_help.sh TIFFANY_BINARY MAN_PAGE
set -euo pipefail
binary=$1 page=$2
warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
[ -z "$warnings" ] || { echo "$page: groff warns:" >&2; echo "$warnings" >&2; exit 1; }
rendered=$(LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$page" 2>/dev/null | col -b)
options=$("$binary" --help | grep -oE '(^|[ |])--[a-z-]+' | tr -d ' |' | sort -u)
[ -n "$options" ] || { echo "$binary --help lists no option" >&2; exit 1; }
missing=0
for option in $options; do
  grep -qF -- "$option" <<<"$rendered" || { echo "$page does not document $option" >&2; missing=1; }
done
[ "$missing" = 0 ] && echo "$page documents: $(echo $options)"

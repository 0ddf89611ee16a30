#!/usr/bin/env bash
# Fails if docs/architecture.md's layout table and the repository's top-level
# folders disagree: a row that names a folder which does not exist, or a
# top-level folder that has no row. Why: the table is where a reader learns
# what each folder owns and may include (tests/lint/include_rules.sh enforces
# that column); a folder it leaves out is architecture nobody wrote down, and
# a row for a folder that is gone describes code that is not there.
#
# The table is the first one under the "## Layout" heading; after its header
# row, each row's first cell names one top-level folder, as `name/`. The
# folders: those git tracks at HEAD when SOURCE_DIR is the top of a git
# checkout (an untracked folder does not count), else the directories in
# SOURCE_DIR; hidden folders (.ci/, .git/) and build output (build*/) aside.
# Usage: architecture_layout.sh [SOURCE_DIR]
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
page=docs/architecture.md
if [ ! -f "$page" ]; then
  echo "architecture_layout: $page is missing"
  exit 1
fi

if [ "$(git rev-parse --show-toplevel 2>/dev/null || true)" = "$(pwd -P)" ]; then
  folders=$(git ls-tree -d --name-only HEAD)
else
  folders=$(find . -mindepth 1 -maxdepth 1 -type d -printf '%f\n')
fi
folders=$(grep -v -e '^\.' -e '^build' <<<"$folders" | LC_ALL=C sort -u || true)

# The table's rows, header and separator left out.
rows=$(awk '
  /^## / {
    if (table) exit
    section = ($0 ~ /^## Layout[[:space:]]*$/)
    next
  }
  section && /^\|/ { table = 1; if (++row > 2) print; next }
  table { exit }  # the first line after the table ends it
' "$page")
if [ -z "$rows" ]; then
  echo "architecture_layout: no table under \"## Layout\" in $page"
  exit 1
fi

status=0
named=""
while IFS= read -r line; do
  cell=$(cut -d'|' -f2 <<<"$line" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
  if [[ ! $cell =~ ^\`([^\`/]+)/\`$ ]]; then
    echo "$page: a layout row's first cell must name one top-level folder as \`name/\`, not: $cell"
    status=1
    continue
  fi
  folder=${BASH_REMATCH[1]}
  if grep -qxF "$folder" <<<"$named"; then
    echo "$page: the layout table names $folder/ twice"
    status=1
  fi
  named+="$folder"$'\n'
  if ! grep -qxF "$folder" <<<"$folders"; then
    echo "$page: the layout table names $folder/, which is not a top-level folder of the repository"
    status=1
  fi
done <<<"$rows"

while IFS= read -r folder; do
  [ -n "$folder" ] || continue
  if ! grep -qxF "$folder" <<<"$named"; then
    echo "$page: the top-level folder $folder/ has no row in the layout table"
    status=1
  fi
done <<<"$folders"

if [ "$status" -ne 0 ]; then
  echo "architecture_layout: fix docs/architecture.md's \"Layout\" table (and tests/lint/include_rules.sh for a source folder)"
  exit 1
fi
echo "architecture_layout: the layout table names all $(grep -c . <<<"$folders") top-level folders, and only those"

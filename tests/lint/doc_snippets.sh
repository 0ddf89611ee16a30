#!/usr/bin/env bash
# Fails if a quoted file in a doc differs from the file itself. A doc quotes a
# file with a marker line right before a fenced block:
#   <!-- snippet: docs/snippets/shop/shop.cpp -->
#   ```cpp
#   ...the file's whole text...
#   ```
# The quoted files are compiled and run by the test suite (tests/CMakeLists.txt),
# so every snippet the docs show builds and works.
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
shift || true
docs=("${@:-docs/plugins.md}")
status=0
count=0
for doc in "${docs[@]}"; do
  while IFS= read -r path; do
    count=$((count + 1))
    quote=$(mktemp)
    if ! SNIPPET="$path" perl -0777 -ne '
      my $p = quotemeta($ENV{SNIPPET});
      if (/<!-- snippet: $p -->\n```[a-z]*\n(.*?)```\n/s) { print $1 } else { exit 3 }' "$doc" >"$quote"; then
      echo "$doc: no fenced block after the marker for $path"; status=1; rm -f "$quote"; continue
    fi
    if [ ! -f "$path" ]; then
      echo "$doc: quotes $path, which does not exist"; status=1
    elif ! diff -u "$path" "$quote" >/dev/null; then
      echo "$doc: the quote of $path differs from the file:"
      diff -u "$path" "$quote" | head -20 || true
      status=1
    fi
    rm -f "$quote"
  done < <(sed -n 's/^<!-- snippet: \(.*\) -->$/\1/p' "$doc")
done
if [ "$count" -eq 0 ]; then
  echo "no snippet markers found in ${docs[*]}"
  exit 1
fi
[ "$status" -eq 0 ] && echo "$count quoted files match"
exit "$status"

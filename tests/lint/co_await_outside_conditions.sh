#!/usr/bin/env bash
# Fails if a co_await sits inside an if/while/switch condition.
# Why: g++ 12 (Debian 12's compiler) miscompiles such coroutines: the whole
# body can be skipped and the task never finishes. Bind the result first:
#   const bool sent = co_await response.write(piece);
#   if (!sent) co_return;
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
# perl (always on Debian) matches balanced parentheses, over several lines too.
offenders=$(git ls-files '*.cpp' '*.hpp' | xargs -r perl -0777 -ne '
  while (/\b(?:if|while|switch)\s*(\((?:[^()]++|(?1))*+\))/g) {
    my $condition = $1;
    if ($condition =~ /\bco_await\b/) {
      my $line = 1 + (() = substr($_, 0, pos($_)) =~ /\n/g);
      print "$ARGV:$line: $condition\n";
    }
  }')
if [ -n "$offenders" ]; then
  echo "co_await inside a condition (g++ 12 miscompiles these; bind the result to a variable first):"
  echo "$offenders"
  exit 1
fi
echo "no co_await inside conditions"

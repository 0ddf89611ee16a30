#!/usr/bin/env bash
# Fails if a file includes another folder's internal/: a folder's internal/ is
# private to that folder (docs/architecture.md, "Layout"). A header
# P/internal/x.hpp belongs to folder P, and only files under P/ (any depth)
# may include it; what other folders of Tiffany need goes in P/engine/
# (shared among our folders, not installed in the SDK). tests/ is exempt (unit
# tests test a folder's private parts); loadtest/ and docs/ are not.
#
# The rare exception is one line of tests/lint/internal_include_exceptions.txt:
#   includer-path  included-path  # reason
# An exception without a reason, or one that matches no include breaking the
# rule, fails too, so the list stays true.
#
# And engine/ holds only what another folder uses: an engine/ header that no
# file outside its folder includes (tests aside) belongs in internal/.
# Usage: internal_is_private.sh [SOURCE_DIR]
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
exceptions=tests/lint/internal_include_exceptions.txt
[ -f "$exceptions" ] || { echo "internal_is_private: $exceptions is missing"; exit 1; }
sources=$(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' | grep -v '^tests/' || true)
offenders=$(echo "$sources" | EXCEPTIONS="$exceptions" xargs -r perl -e '
  my $list = $ENV{EXCEPTIONS};
  my (%excepted, %used, @problems);
  open my $fh, "<", $list or die "$list: $!";
  while (<$fh>) {
    chomp;
    next if /^\s*(#|$)/;
    my ($paths, $reason) = /^([^#]*?)\s*(?:#\s*(.*?))?\s*$/;
    my @paths = split " ", $paths;
    if (@paths != 2) {
      push @problems, "$list:$.: an exception is \"includer-path  included-path  # reason\"";
    } elsif (!defined $reason || $reason eq "") {
      push @problems, "$list:$.: the exception of $paths[0] including $paths[1] gives no reason (after \"#\")";
    } else {
      $excepted{"$paths[0] $paths[1]"} = $.;
    }
  }
  close $fh;
  my (%engine, %engine_used);
  for my $file (@ARGV) {
    $engine{$file} = 1 if $file =~ m{^(.*?)/engine/[^/]+.*\.(h|hpp)$};
  }
  for my $file (@ARGV) {
    open my $src, "<", $file or die "$file: $!";
    while (<$src>) {
      next unless /^\s*#\s*include\s*(?:"([^"]+)"|<tiffany\/([^>]+)>)/;
      my $path = $1 // $2;
      my $spelled = defined $1 ? "\"$path\"" : "<tiffany/$path>";
      if (my ($owner) = $path =~ m{^(.*?)/engine/}) {
        $engine_used{$path} = 1 if index($file, "$owner/") != 0;
      }
      my ($owner) = $path =~ m{^(.*?)/internal/} or next;
      next if index($file, "$owner/") == 0;
      if (exists $excepted{"$file $path"}) {
        $used{"$file $path"} = 1;
        next;
      }
      push @problems, "$file:$.: #include $spelled: $owner/internal/ is private to $owner/; move what other folders " .
                      "need to $owner/engine/, or list the exception with its reason in $list";
    }
    close $src;
  }
  for my $pair (sort { $excepted{$a} <=> $excepted{$b} } keys %excepted) {
    next if $used{$pair};
    my ($file, $path) = split " ", $pair;
    push @problems, "$list:$excepted{$pair}: $file no longer includes $path from outside its folder: remove the exception";
  }
  for my $header (sort keys %engine) {
    next if $engine_used{$header};
    my ($owner) = $header =~ m{^(.*?)/engine/};
    push @problems, "$header: no file outside $owner/ includes it (tests aside): it belongs in $owner/internal/";
  }
  print "$_\n" for @problems;
')
if [ -n "$offenders" ]; then
  echo "includes that reach into another folder's internal/ (docs/architecture.md, \"Layout\"), or engine/ headers no other folder uses:"
  echo "$offenders"
  exit 1
fi
listed=$(grep -cv '^\s*\(#\|$\)' "$exceptions" || true)
echo "no folder includes another's internal/ (exceptions: $listed, in $exceptions), and another folder uses every engine/ header"

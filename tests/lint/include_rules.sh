#!/usr/bin/env bash
# Fails if a file includes a folder that DESIGN.md's layout table does not let
# its folder include: an include that points up the table is a design bug.
#   coro/      nothing else of ours
#   reactor/   coro/
#   conf/      nothing else of ours
#   http/      coro/, reactor/        (HTTP messages, shared by the server and a client)
#   handlers/  coro/, reactor/, http/
#   server/    everything; but server/transport/ not server/http/ or server/echo/
#              (protocols sit on transports, not the reverse)
# tests/, loadtest/ and docs/ may include everything. Only quoted includes of
# our top-level folders count ("coro/task.hpp"); a bare "kv_store.hpp" is the
# file's own folder. A new top-level source folder fails until it has a row here.
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
sources=$(git ls-files | grep -E '\.(c|h|cpp|hpp)$' | grep -vE '^(tests|loadtest|docs)/')
folders=$(git ls-files | grep / | cut -d/ -f1 | sort -u | tr '\n' ' ')
offenders=$(echo "$sources" | FOLDERS="$folders" xargs -r perl -ne '
  BEGIN {
    # folder => folders of ours it may include (besides itself)
    %allowed = (
      "coro"     => [],
      "reactor"  => ["coro"],
      "conf"     => [],
      "http"     => ["coro", "reactor"],
      "handlers" => ["coro", "reactor", "http"],
      "server"   => ["coro", "reactor", "conf", "http", "handlers"],
    );
    %ours = map { $_ => 1 } split " ", $ENV{FOLDERS};
  }
  my ($folder) = $ARGV =~ m{^([^/]+)/};
  if (!exists $allowed{$folder}) {
    print "$ARGV: $folder/ has no row in the include rules (tests/lint/include_rules.sh, DESIGN.md)\n" if $. == 1;
  } elsif (/^\s*#\s*include\s*"(([^"\/]+)\/[^"]*)"/ && $ours{$2}) {
    my ($path, $target) = ($1, $2);
    my $rule;
    if ($target ne $folder && !grep { $_ eq $target } @{$allowed{$folder}}) {
      my @may = @{$allowed{$folder}};
      $rule = "$folder/ may include " . (@may ? join(", ", map { "$_/" } @may) : "nothing else of ours");
    } elsif ($ARGV =~ m{^server/transport/} && $path =~ m{^server/(http|echo)/}) {
      $rule = "server/transport/ may not include server/http/ or server/echo/ (protocols sit on transports)";
    }
    print "$ARGV:$.: #include \"$path\": $rule\n" if defined $rule;
  }
  close ARGV if eof;  # restart $. for each file
')
if [ -n "$offenders" ]; then
  echo "includes that point up the layout table (DESIGN.md, \"Layout\"):"
  echo "$offenders"
  exit 1
fi
echo "every include follows the layout table"

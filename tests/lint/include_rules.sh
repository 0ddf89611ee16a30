#!/usr/bin/env bash
# Fails if a file includes a folder that docs/architecture.md's layout table
# does not let its folder include: an include that points up the table is a
# design bug.
#   coro/      nothing else of ours
#   reactor/   coro/
#   conf/      nothing else of ours
#   net/       coro/, reactor/, conf/  (byte streams, resolver, outbound connect, TLS)
#   http/      coro/, reactor/        (HTTP messages, shared by the server and a client)
#   client/    coro/, reactor/, net/, http/, conf/ (the pooled HTTP client, upstream groups)
#   handlers/  coro/, reactor/, net/, http/, client/
#   server/    everything; but server/transport/ not server/http/ or server/echo/
#              (protocols sit on transports, not the reverse)
#   sim/       everything above (the simulation runs the whole server on its backend)
# tests/, loadtest/ and docs/ may include everything. Includes of ours are
# "folder/…" paths and <tiffany/folder/…> SDK names; a bare "kv_store.hpp" is
# the file's own folder. A new top-level source folder fails until it has a row here.
#
# And one name per header: an SDK header (cmake/sdk_headers.sh) is included as
# <tiffany/…> everywhere, never as a "…" path; <tiffany/…> names SDK headers
# only; and an SDK header includes no header outside the SDK, since it would
# not be installed.
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
all=$(git ls-files | grep -E '\.(c|h|cpp|hpp|md)$')
folders=$(git ls-files | grep / | cut -d/ -f1 | sort -u | tr '\n' ' ')
public=$(cmake/sdk_headers.sh . | tr '\n' ' ')
offenders=$(echo "$all" | FOLDERS="$folders" PUBLIC="$public" xargs -r perl -ne '
  BEGIN {
    # folder => folders of ours it may include (besides itself)
    %allowed = (
      "coro"     => [],
      "reactor"  => ["coro"],
      "conf"     => [],
      "net"      => ["coro", "reactor", "conf"],
      "http"     => ["coro", "reactor"],
      "client"   => ["coro", "reactor", "net", "http", "conf"],
      "handlers" => ["coro", "reactor", "net", "http", "client"],
      "server"   => ["coro", "reactor", "conf", "net", "http", "client", "handlers"],
      "sim"      => ["coro", "reactor", "conf", "net", "http", "client", "handlers", "server"],
    );
    %ours = map { $_ => 1 } split " ", $ENV{FOLDERS};
    %public = map { $_ => 1 } split " ", $ENV{PUBLIC};
  }
  my ($folder) = $ARGV =~ m{^([^/]+)/};
  my $checked = $ARGV !~ m{\.md$} && $folder !~ m{^(tests|loadtest|docs)$};
  if ($checked && !exists $allowed{$folder}) {
    print "$ARGV: $folder/ has no row in the include rules (tests/lint/include_rules.sh, docs/architecture.md)\n" if $. == 1;
  } elsif (/^\s*#\s*include\s*(?:"(([^"\/]+)\/[^"]*)"|<tiffany\/(([^>\/]+)\/[^>]*)>)/) {
    my ($path, $target, $sdk) = defined $1 ? ($1, $2, 0) : ($3, $4, 1);
    my $rule;
    if ($sdk && !$public{$path}) {
      $rule = "<tiffany/…> names SDK headers only, and $path is not one (cmake/sdk_headers.sh)";
    } elsif (!$sdk && $public{$path}) {
      $rule = "an SDK header is included as <tiffany/$path>";
    } elsif (!$sdk && $public{$ARGV} && $ours{$target}) {
      $rule = "an SDK header may include only SDK headers: $path is not installed";
    } elsif (!$checked || !$ours{$target}) {
      # tests, docs and loadtest may include everything
    } elsif ($target ne $folder && !grep { $_ eq $target } @{$allowed{$folder}}) {
      my @may = @{$allowed{$folder}};
      $rule = "$folder/ may include " . (@may ? join(", ", map { "$_/" } @may) : "nothing else of ours");
    } elsif ($ARGV =~ m{^server/transport/} && $path =~ m{^server/(http|echo)/}) {
      $rule = "server/transport/ may not include server/http/ or server/echo/ (protocols sit on transports)";
    }
    my $spelled = $sdk ? "<tiffany/$path>" : "\"$path\"";
    print "$ARGV:$.: #include $spelled: $rule\n" if defined $rule;
  }
  close ARGV if eof;  # restart $. for each file
')
if [ -n "$offenders" ]; then
  echo "includes that break the layout table (docs/architecture.md, \"Layout\") or the SDK's one name per header:"
  echo "$offenders"
  exit 1
fi
echo "every include follows the layout table, and SDK headers are named <tiffany/…>"

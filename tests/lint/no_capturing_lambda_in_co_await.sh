#!/usr/bin/env bash
# Fails if a lambda that captures by copy ([x], [=], [x = expr], [this, x],
# [&a, b], [*this]) is written inside a co_await operand, i.e. anywhere from
# the co_await keyword to the end of its expression (a `;` at bracket depth 0,
# or the bracket that closes around the co_await).
# Why: g++ 12 (Debian 12's compiler) destroys such a temporary closure twice
# when it sits in a co_await operand, so
#   co_await offload(pool, [body = request.body] { return hash(body); });
# frees `body` twice and crashes. Safe: capture nothing (or only by reference:
# [&], [&x], [this], [&, this]) and pass the data as arguments, or name the
# lambda first:
#   co_await offload(pool, [](std::string body) { return hash(body); }, std::move(request.body));
#   auto job = [body = request.body] { return hash(body); };
#   co_await offload(pool, job);
# What it cannot see: types. A copy capture of something trivially
# destructible (an int, a pointer) is not a hazard; mark such a line with
#   // NOLINT(capturing-lambda-in-co_await)
# on the line of the capture list. Not scanned: the statements inside a
# function body nested in the operand (`co_await f([] { auto g = [s] {...}; })`):
# they are another function's, not this co_await's temporaries, and a co_await
# among them is checked on its own. tests/compile_fail/ holds deliberate misuse
# that never compiles, so it is not scanned either.
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
# perl (always on Debian) walks the brackets; comments and literals are blanked first.
offenders=$(git ls-files -z -- '*.cpp' '*.hpp' ':(exclude)tests/compile_fail/' | xargs -0 -r perl -0777 -ne '
  my @lines = split /\n/, $_, -1;
  my $s = $_;
  sub newlines { my $t = shift; $t =~ tr/\n//cd; return $t; }
  # Blank comments and the insides of string and character literals, keeping
  # every newline (line numbers) and the quotes (so "ab"[0] stays a subscript).
  # Identifiers and numbers are matched only to be kept whole: 1\x27000 is a
  # number, and uR"(...)" a raw string, not an identifier and a string.
  $s =~ s{ ((?:u8|[uUL])?R"([^()\\\s]{0,16})\(.*?\)\2")
         | ([A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.]|\x27(?=\w))*)
         | (//[^\n]*|/\*.*?\*/)
         | ("(?:\\.|[^"\\\n])*")
         | (\x27(?:\\.|[^\x27\\\n])*\x27) }
         { defined $1 ? "\"" . newlines($1) . "\""
         : defined $3 ? $3
         : defined $4 ? " " . newlines($4)
         : defined $5 ? "\"" . newlines($5) . "\""
         : "\x27\x27" }gsex;
  my $n = length $s;
  # Position of the bracket closing the one at $open (any kind, they nest
  # properly in valid code), and whether a `;` sits directly inside it.
  my $close = sub {
    my ($open) = @_;
    my ($depth, $statements) = (0, 0);
    for (my $k = $open; $k < $n; $k++) {
      my $c = substr($s, $k, 1);
      if ($c =~ /[([{]/) { $depth++ }
      elsif ($c =~ /[)\]}]/) { return ($k, $statements) if --$depth == 0 }
      elsif ($c eq ";" && $depth == 1) { $statements = 1 }
    }
    return (undef, $statements);
  };
  # The capture list if the [ at $i introduces a lambda that captures
  # something by copy, else undef.
  my $copy_capture = sub {
    my ($i) = @_;
    my $j = $i - 1;
    $j-- while $j >= 0 && substr($s, $j, 1) =~ /\s/;
    my $before = $j >= 0 ? substr($s, $j, 1) : "";
    my $k = $i + 1;
    $k++ while $k < $n && substr($s, $k, 1) =~ /\s/;
    return undef if $before eq "[" || substr($s, $k, 1) eq "[";    # [[attribute]]
    return undef if $before =~ /[)\]"\x27]/;                       # subscript
    if ($before =~ /\w/) {                                         # a[i], operator[], auto [a, b]
      my $w = $j;
      $w-- while $w > 0 && substr($s, $w - 1, 1) =~ /\w/;
      my $word = substr($s, $w, $j - $w + 1);
      return undef unless $word =~ /^(?:return|co_await|co_return|co_yield|throw|else|do|case)$/;
    }
    return undef if substr($s, $i < 40 ? 0 : $i - 40, $i < 40 ? $i : 40) =~ /\bauto\s*&&?\s*\z/;  # auto& [a, b]
    my ($end) = $close->($i);
    return undef unless defined $end;
    my $after = substr($s, $end + 1, 40);
    return undef unless $after =~ /^\s*(?:[({<[]|->|[A-Za-z_])/;   # (params), {body}, <T>, mutable, ...
    my $list = substr($s, $i + 1, $end - $i - 1);
    (my $flat = $list) =~ s/\s+/ /g;
    $flat =~ s/^ | $//g;
    return undef if $flat eq "";
    # Split at the commas outside the brackets of init-captures.
    my ($depth, $copies, @items, $item) = (0, 0);
    $item = "";
    for my $c (split //, $flat) {
      if ($c =~ /[([{]/) { $depth++ } elsif ($c =~ /[)\]}]/) { $depth-- }
      if ($c eq "," && $depth == 0) { push @items, $item; $item = ""; next }
      $item .= $c;
    }
    push @items, $item;
    for (@items) {
      s/^ | $//g;
      if (/^&/ || $_ eq "this") { next }                         # by reference
      elsif ($_ eq "=" || /^\* ?this$/) { $copies++ }
      elsif (/^(?:\.\.\. ?)?[A-Za-z_]\w*(?: ?\.\.\.)?(?: ?(?:=|\{|\()|$)/) { $copies++ }
      else { return undef }                                        # not a capture list
    }
    return $copies ? "[$flat]" : undef;
  };
  my %reported;
  while ($s =~ /\bco_await\b/g) {
    my $depth = 0;
    for (my $i = pos($s); $i < $n; $i++) {
      my $c = substr($s, $i, 1);
      if ($c eq ";") { last if $depth == 0 }
      elsif ($c eq "{") {
        my ($end, $statements) = $close->($i);
        last unless defined $end;
        # A function body (lambda body): its statements are not this operand.
        if ($statements) { $i = $end; next }
        $depth++;
      }
      elsif ($c eq "[") {
        if (!$reported{$i} && defined(my $captures = $copy_capture->($i))) {
          my $line = 1 + (substr($s, 0, $i) =~ tr/\n//);
          my $source = $lines[$line - 1];
          unless ($source =~ /NOLINT\(capturing-lambda-in-co_await\)/) {
            $source =~ s/^\s+|\s+$//g;
            print "$ARGV:$line: $captures in: $source\n";
          }
          $reported{$i} = 1;
        }
        $depth++;
      }
      elsif ($c eq "(") { $depth++ }
      elsif ($c =~ /[)\]}]/) { last if --$depth < 0 }
    }
  }')
if [ -n "$offenders" ]; then
  echo "lambda capturing by copy inside a co_await operand (g++ 12 destroys its captures twice; capture nothing and pass arguments, or name the lambda first):"
  echo "$offenders"
  exit 1
fi
echo "no lambda capturing by copy inside a co_await operand"

#!/usr/bin/python3
"""Instructions per request by step of the request path, from two callgrind runs of one
scenario (loadtest/instructions.sh -s): N requests and 2N. Each function's own instructions
(callgrind_annotate, inclusive=no) go to the first step whose pattern matches its file or
name; a step's figure is (its sum over the 2N run - over the N run) / N, so start-up and
shutdown cancel out as they do in the total.

usage: instruction_steps.py N CALLGRIND_OUT_N CALLGRIND_OUT_2N
"""
import collections
import re
import subprocess
import sys

# (step, pattern over "file:function [object]"), first match wins: the order matters where a
# function names two steps (Exchange::route is routing, not the exchange's bookkeeping).
STEPS = [
    ("parse: llhttp and its callbacks", r"llhttp|request_parser\.cpp|known_methods"),
    ("head checks: target, Host, limits", r"request_head_checks|uri\.cpp"),
    ("routing", r"router\.cpp|Exchange::route"),
    ("request id and task context", r"request_id|task_context|Exchange::begin"),
    ("handler", r"handlers/builtin"),
    ("serialise: head, date, field checks", r"response_output|headers\.cpp|http_date|http_status|append_head"),
    ("write and flush", r"socket_stream|::flush|tls_stream"),
    ("exchange: respond, judge, finish, metrics, log",
     r"exchange(_respond)?\.cpp|metrics|server_stats|access_log|clock"),
    ("HTTP/1.1 connection: serve, answer, its wire", r"server/http/|http_protocol"),
    ("HTTP/2: session, streams, nghttp2", r"server/http2/|nghttp2"),
    ("transport: idle park, slot, tracker", r"server/transport/|std_function"),
    ("reactor: epoll, operations", r"epoll|io_operation|reactor"),
    ("scheduler and coroutine frames", r"scheduler|frame_allocator|coroutine|task\.hpp|intrusive_list|deadline"),
    ("libc and std: copies, allocation, strings", r"libc\.so|libstdc|basic_string|char_traits|stl_|move\.h|unique_ptr"),
]
LINE = re.compile(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)")


def by_step(path):
    """Sums a callgrind output's own instructions by step."""
    listing = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", path],
                             check=True, capture_output=True, text=True).stdout
    sums = collections.Counter()
    functions = listing.split("file:function", 1)[-1]
    for line in functions.splitlines():
        match = LINE.match(line)
        if match is None:
            continue
        count, what = int(match.group(1).replace(",", "")), match.group(2)
        step = next((name for name, pattern in STEPS if re.search(pattern, what)), "other")
        sums[step] += count
    return sums


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    n = int(argv[1])
    once, twice = by_step(argv[2]), by_step(argv[3])
    total = 0
    for name in [step for step, _ in STEPS] + ["other"]:
        per = (twice[name] - once[name]) / n
        total += per
        print("    %-45s %7.0f" % (name, per))
    print("    %-45s %7.0f" % ("all steps", total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

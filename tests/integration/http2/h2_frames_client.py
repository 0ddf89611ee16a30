#!/usr/bin/python3
"""HTTP/2 test driver for the integration tests: runs one scenario (a normal exchange or an attack)
against a server and prints ONE JSON object saying what the server did.

usage: h2_frames_client.py --host 127.0.0.1 --port N [--tls] [options] SCENARIO [ARGS...]

Normal traffic goes through the `h2` package (python3-h2); what its API refuses to send (bad
frames, floods, junk header blocks) is written with the small frame encoder below. Every frame the
server sends is parsed here (9-byte header, HPACK-decoded header blocks) and recorded: GOAWAY
(error code name, last_stream_id), RST_STREAM per stream, responses (status, headers, body length),
SETTINGS/PING acknowledgements, and whether and when the server closed the connection. Every
scenario ends with an "after" check: a new connection whose GET --path must be answered quickly.

Exit status: 0 when the scenario ran (whatever the server answered), 1 when the driver could not
run it (no connection, no h2 by ALPN, a bug here), 2 for bad arguments.
"""

import argparse
import json
import os
import select
import socket
import ssl
import struct
import sys
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings
import hpack

from h2_wire import *  # noqa: F401,F403 (frames, HPACK bytes, Connection: the wire side)


# ---------------------------------------------------------------------------------------------
# Scenarios. Each takes the parsed arguments and returns the dict to print (with report()).

def scenario_get(args):
    """One GET --path: status, headers, body length."""
    conn = Connection(args)
    try:
        stream_id = conn.request(args.path)
        conn.read(until=lambda: conn.done(stream_id) or conn.finished())
        return dict(conn.report(), stream_id=stream_id)
    finally:
        conn.close()


def scenario_concurrent(args):
    """N GETs --path on one connection, as many at once as the server's SETTINGS_MAX_CONCURRENT_STREAMS
    allows (more are opened as streams end)."""
    count = args.numbers[0]
    conn = Connection(args)
    try:
        conn.read(until=lambda: conn.settings_received is not None or conn.finished())
        opened, most_open = [], 0
        while not conn.finished():
            limit = conn.h2.remote_settings.max_concurrent_streams
            while len(opened) < count and conn.h2.open_outbound_streams < limit:
                opened.append(conn.request(args.path))
            most_open = max(most_open, conn.h2.open_outbound_streams)
            if len(opened) == count and all(conn.done(sid) for sid in opened):
                break
            before = sum(conn.done(sid) for sid in opened)
            conn.read(until=lambda: sum(conn.done(sid) for sid in opened) > before or conn.finished())
            if conn.read_stopped == "deadline":
                break
        completed = sum(1 for sid in opened if conn.responses[sid].get("end_ms") is not None)
        return dict(conn.report(), opened=len(opened), completed=completed, most_open_at_once=most_open)
    finally:
        conn.close()


def scenario_rapid_reset(args):
    """CVE-2023-44487: N streams, each HEADERS (GET --path) and at once RST_STREAM(CANCEL), written
    without reading; then reads what the server says (it should not answer them all)."""
    count = args.numbers[0]
    conn = Connection(args, feed_h2=False)
    try:
        def frames():
            for _ in range(count):
                stream_id = conn.h2.get_next_available_stream_id()
                conn.h2.send_headers(stream_id, [(":method", "GET"), (":scheme", conn.scheme), (":path", args.path),
                                                 (":authority", conn.authority)], end_stream=True)
                conn.h2.reset_stream(stream_id, h2.errors.ErrorCodes.CANCEL)
                yield conn.h2.data_to_send()
        sent = conn.send_frames(frames(), "rapid_reset")
        conn.read(quiet=args.quiet)
        return dict(conn.report(), streams_sent=sent)
    finally:
        conn.close()


def scenario_reset_on_signal(args):
    """One GET --path; once the file --signal exists, RST_STREAM(CANCEL) on it; then the connection stays
    open, read, until the file --signal.done exists (each wait bounded by --wait). Says whether the signal
    came, whether the stream was answered before the reset, and whether the connection was open at the end."""
    conn = Connection(args)
    try:
        stream_id = conn.request(args.path)
        deadline = time.monotonic() + args.wait
        while not os.path.exists(args.signal) and time.monotonic() < deadline and not conn.finished():
            conn.read(until=lambda: conn.done(stream_id) or conn.finished(), timeout=0.05)
        signaled = os.path.exists(args.signal)
        answered = conn.done(stream_id)
        if not answered:
            conn.h2.reset_stream(stream_id, h2.errors.ErrorCodes.CANCEL)
            conn.flush()
        deadline = time.monotonic() + args.wait
        while not os.path.exists(args.signal + ".done") and time.monotonic() < deadline and not conn.finished():
            conn.read(until=conn.finished, timeout=0.05)
        return dict(conn.report(), stream_id=stream_id, signaled=signaled, answered_before_reset=answered,
                    open_at_end=not conn.finished())
    finally:
        conn.close()


def scenario_continuation_flood(args):
    """CVE-2024-27316: HEADERS (a GET) without END_HEADERS, then N CONTINUATION frames each carrying
    --frame-bytes of junk header fields, never ending the block."""
    count = args.numbers[0]
    conn = Connection(args, feed_h2=False)
    try:
        conn.send(frame(HEADERS, END_STREAM, 1, hpack_request("GET", args.path, conn.authority, conn.scheme)))

        def frames():
            for index in range(count):
                junk = hpack_literal("x-junk-%d" % index, "j" * max(args.frame_bytes - 16, 1))
                yield frame(CONTINUATION, 0, 1, junk)
        sent = conn.send_frames(frames(), "continuation_flood")
        conn.read(quiet=args.quiet)
        return dict(conn.report(), continuation_frames_sent=sent, bytes_per_frame=args.frame_bytes)
    finally:
        conn.close()


def scenario_hpack_bomb(args):
    """A GET whose header block inserts one header of about 4 KB into the dynamic table and then
    references it N times (default 2000, 1 byte each): a decoded size of N x 4 KB, far above any
    max_header_list_size, from a block of about 4 KB + N bytes (sent in CONTINUATIONs as needed)."""
    count = args.numbers[0] if args.numbers else 2000
    conn = Connection(args, feed_h2=False)
    try:
        value = "b" * 4000
        block = hpack_request("GET", args.path, conn.authority, conn.scheme)
        block += hpack_literal("x-bomb", value, index_it=True)
        block += hpack_int(62, 7, 0x80) * count  # dynamic index 62: the entry just inserted
        chunks = [block[i:i + 16384] for i in range(0, len(block), 16384)]
        frames = [frame(HEADERS if i == 0 else CONTINUATION, (END_STREAM if i == 0 else 0) |
                        (END_HEADERS if i == len(chunks) - 1 else 0), 1, chunk) for i, chunk in enumerate(chunks)]
        conn.send(b"".join(frames), "hpack_bomb")
        conn.read(until=lambda: conn.done(1) or conn.finished())
        return dict(conn.report(), block_bytes=len(block), references=count,
                    decoded_bytes=(len("x-bomb") + len(value) + 32) * (count + 1))
    finally:
        conn.close()


def flood(args, label, make_frame, until=None):
    """Sends N frames made by MAKE_FRAME(index) without reading, then reads the answers until
    UNTIL(conn) (or the server closes, --wait passes, or it goes quiet for --quiet seconds)."""
    count = args.numbers[0]
    conn = Connection(args, feed_h2=False)
    try:
        sent = conn.send_frames((make_frame(index) for index in range(count)), label)
        # Why only when all went out: after a refused send the answers to count are not all coming.
        done = (lambda: until(conn, sent)) if until and sent == count else (lambda: False)
        conn.read(until=done, quiet=args.quiet)
        return dict(conn.report(), frames_sent=sent, frames_asked=count)
    finally:
        conn.close()


def scenario_settings_flood(args):
    """N SETTINGS frames (INITIAL_WINDOW_SIZE 65535) sent without reading their ACKs."""
    return flood(args, "settings_flood", lambda _: settings_frame([(SETTINGS_INITIAL_WINDOW_SIZE, 65535)]),
                 until=lambda conn, sent: conn.settings_acks >= sent + 1)


def scenario_ping_flood(args):
    """N PING frames sent without reading their ACKs."""
    return flood(args, "ping_flood", lambda index: frame(PING, 0, 0, struct.pack(">Q", index)),
                 until=lambda conn, sent: conn.ping_acks >= sent)


def scenario_priority_flood(args):
    """N PRIORITY frames on idle streams (3, 5, 7, ...), each depending on the one before."""
    return flood(args, "priority_flood", lambda index: priority(2 * index + 3, 2 * index + 1 if index else 0))


def scenario_window_update_flood(args):
    """N WINDOW_UPDATE frames of increment 1 on the connection (never overflowing it)."""
    return flood(args, "window_update_flood", lambda _: window_update(0, 1))


def scenario_empty_data_flood(args):
    """A POST --post-path (HEADERS without END_STREAM), then N DATA frames of length 0 without
    END_STREAM on it."""
    count = args.numbers[0]
    conn = Connection(args, feed_h2=False)
    try:
        extra = [("content-type", "application/octet-stream")]
        conn.send(frame(HEADERS, END_HEADERS, 1, hpack_request("POST", args.post_path, conn.authority, conn.scheme, extra)))
        sent = conn.send_frames((frame(DATA, 0, 1) for _ in range(count)), "empty_data_flood")
        conn.read(quiet=args.quiet)
        return dict(conn.report(), frames_sent=sent)
    finally:
        conn.close()


def scenario_zero_window(args):
    """SETTINGS_INITIAL_WINDOW_SIZE 0, then GET --large-path and never open the window: reports what
    arrives within --wait (the response's HEADERS, then the server's RST_STREAM or GOAWAY or close
    after its write timeout)."""
    conn = Connection(args, feed_h2=False, auto_window=False,
                      settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
    try:
        stream_id = conn.request(args.large_path)
        conn.read(until=lambda: conn.done(stream_id) or conn.finished())
        return dict(conn.report(), stream_id=stream_id)
    finally:
        conn.close()


def scenario_stream_id_exhaustion(args):
    """GETs on the last N odd stream ids up to 2^31-1 (default 3, one after the other), then one more
    HEADERS on a lower id (1), which RFC 9113 section 5.1.1 makes a connection error PROTOCOL_ERROR."""
    count = args.numbers[0] if args.numbers else 3
    conn = Connection(args, feed_h2=False)
    try:
        ids = [MAX_STREAM_ID - 2 * (count - 1 - index) for index in range(count)]
        for stream_id in ids:
            conn.responses[stream_id] = {"status": None}
            conn.send(frame(HEADERS, END_STREAM | END_HEADERS, stream_id,
                            hpack_request("GET", args.path, conn.authority, conn.scheme)), "open")
            conn.read(until=lambda: conn.done(stream_id) or conn.finished())
        answered = sum(1 for sid in ids if conn.responses[sid].get("status"))
        conn.send(frame(HEADERS, END_STREAM | END_HEADERS, 1, hpack_request("GET", args.path, conn.authority, conn.scheme)),
                  "reuse")
        conn.read(until=conn.finished, quiet=args.quiet)
        return dict(conn.report(), stream_ids=ids, answered_near_limit=answered)
    finally:
        conn.close()


def scenario_never_read(args):
    """N GETs --large-path (default 100) with every flow-control window open, then never read for
    --wait seconds (watching only for a reset or hang-up), then drain what is there for up to --wait
    more: reports whether and when the server closed (a live server keeps sending until the end)."""
    count = args.numbers[0] if args.numbers else 100
    conn = Connection(args, feed_h2=False, auto_window=False,
                      settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: MAX_STREAM_ID})
    try:
        # Why open every window: the server must be stuck on the socket, not on flow control.
        conn.send(window_update(0, MAX_STREAM_ID - 65535))

        def frames():
            for _ in range(count):
                stream_id = conn.h2.get_next_available_stream_id()
                conn.h2.send_headers(stream_id, [(":method", "GET"), (":scheme", conn.scheme),
                                                 (":path", args.large_path), (":authority", conn.authority)], end_stream=True)
                yield conn.h2.data_to_send()
        sent = conn.send_frames(frames(), "never_read")
        poller = select.poll()
        poller.register(conn.sock, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
        deadline, hangup = time.monotonic() + args.wait, None
        while time.monotonic() < deadline and hangup is None:
            events = poller.poll(max(int((deadline - time.monotonic()) * 1000), 1))
            if events:
                hangup = {"events": events[0][1], "ms": now_ms(conn.start)}
        # Why no --quiet: a peer stuck on a zero window resumes only at its next window probe.
        conn.read(timeout=args.wait)  # drain: did the server close while we did not read?
        return dict(conn.report(), requests_sent=sent, hangup_while_not_reading=hangup)
    finally:
        conn.close()


def upload(args, streams, size):
    """STREAMS concurrent POSTs --post-path of SIZE bytes each, sent as flow control allows (h2
    keeps the windows); returns the report with each stream's status and echoed length."""
    conn = Connection(args)
    try:
        conn.read(until=lambda: conn.settings_received is not None or conn.finished())
        headers = [("content-type", "application/octet-stream")]
        if not args.no_length:
            headers.append(("content-length", str(size)))
        headers += [tuple(field.split(":", 1)) for field in args.header]
        ids = [conn.request(args.post_path, "POST", end_stream=False, extra=headers) for _ in range(streams)]
        left = {sid: size for sid in ids}
        chunk = b"u" * 16384
        last_progress = time.monotonic()
        while not conn.finished() and not all(conn.done(sid) for sid in ids):
            progressed = False
            for sid in ids:
                if not left[sid] or conn.done(sid):
                    continue
                try:
                    room = min(conn.h2.local_flow_control_window(sid), conn.h2.max_outbound_frame_size, left[sid])
                except h2.exceptions.StreamClosedError:
                    left[sid] = 0
                    continue
                if room > 0:
                    left[sid] -= room
                    conn.h2.send_data(sid, chunk[:room] if room <= len(chunk) else b"u" * room, end_stream=not left[sid])
                    progressed = True
            conn.flush()
            received = conn.bytes_received
            conn.read(timeout=0.001 if progressed else 0.05)
            if progressed or conn.bytes_received != received:
                last_progress = time.monotonic()
            elif time.monotonic() - last_progress > args.wait:
                conn.read_stopped = "deadline"
                break
        if all(conn.done(sid) for sid in ids):
            conn.read_stopped = "done"
        result = conn.report()
        result["uploads"] = {str(sid): {"status": conn.responses[sid].get("status"), "sent": size - left[sid],
                                        "echoed_length": conn.responses[sid].get("body_length", 0)} for sid in ids}
        return result
    finally:
        conn.close()


def scenario_post(args):
    """One POST --post-path of N_BYTES, respecting flow control: status and echoed length."""
    return dict(upload(args, 1, args.numbers[0]), bytes=args.numbers[0])


def scenario_post_concurrent(args):
    """K POSTs --post-path of N_BYTES each at once on one connection."""
    streams, size = args.numbers[0], args.numbers[1]
    return dict(upload(args, streams, size), streams=streams, bytes=size)


def scenario_stalled_post(args):
    """A POST --post-path declaring twice N_BYTES (at most 16384) that sends N_BYTES and stops:
    what the server answers, and after how long (answered_ms)."""
    size = args.numbers[0]
    if size > 16384:
        raise DriverError("stalled_post sends one DATA frame: at most 16384 bytes")
    conn = Connection(args)
    try:
        conn.read(until=lambda: conn.settings_received is not None or conn.finished())
        stream_id = conn.request(args.post_path, "POST", end_stream=False, extra=[("content-length", str(2 * size))])
        conn.h2.send_data(stream_id, b"s" * size)
        conn.flush()
        started = time.monotonic()
        conn.read(until=lambda: conn.done(stream_id) or conn.finished())
        return dict(conn.report(), stream_id=stream_id, answered_ms=round((time.monotonic() - started) * 1000))
    finally:
        conn.close()


def scenario_bad_preface(args):
    """Connections that start wrong: a corrupted preface, and a good preface followed by a PING
    instead of SETTINGS. RFC 9113 section 3.4: a connection error PROTOCOL_ERROR, whose GOAWAY may be
    omitted (scope "preface": a GOAWAY PROTOCOL_ERROR, or a close without GOAWAY). One case: --case."""
    cases = {
        "corrupt_magic": (b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n" + settings_frame([]), "PROTOCOL_ERROR", "preface"),
        "ping_before_settings": (PREFACE + frame(PING, 0, 0, b"\0" * 8), "PROTOCOL_ERROR", "preface"),
    }
    return run_cases(args, cases)


def run_cases(args, cases):
    """Runs each case (bytes to send, expected error, scope) on a new connection that sends nothing
    of its own (no preface), or only --case."""
    if args.case and args.case not in cases:
        raise DriverError("no case named %r (cases: %s)" % (args.case, ", ".join(cases)))
    results = {}
    for name, (data, expected, scope) in cases.items():
        if args.case and name != args.case:
            continue
        conn = Connection(args, feed_h2=False, preface=False)
        try:
            # Why in two parts: what follows a finished stream must find it finished, answered and closed.
            first, after_stream_1 = data if isinstance(data, tuple) else (data, b"")
            conn.send(first, name)
            if after_stream_1:
                conn.read(until=lambda: conn.done(1) or conn.finished())
                conn.send(after_stream_1, name)
            if scope == "none":
                conn.read(until=lambda: conn.ping_acks > 0 or conn.finished(), quiet=args.quiet)
            else:
                conn.read(until=conn.finished, quiet=args.quiet)
            got = conn.report()
            results[name] = {"expected": {"scope": scope, "error": expected}, "goaway": got["goaway"],
                             "rst_streams": got["rst_streams"], "closed_by_server": got["closed_by_server"],
                             "http1_answer": got["http1_answer"], "status_counts": got["status_counts"],
                             "ping_acks": got["ping_acks"], "read_stopped": got["read_stopped"]}
            results[name]["matches"] = matches(results[name])
        finally:
            conn.close()
    return {"cases": results}


def scenario_bad_frames(args):
    """Protocol errors, each on a new connection after a good preface and SETTINGS: the error code
    RFC 9113 fixes for each is in "expected" (scope connection: GOAWAY; stream: RST_STREAM, or a
    GOAWAY since an endpoint may treat a stream error as a connection error). One case: --case."""
    start = PREFACE + settings_frame([(SETTINGS_ENABLE_PUSH, 0)])
    get = hpack_request("GET", args.path, "%s:%d" % (args.host, args.port), "https" if args.tls else "http")
    post = hpack_request("POST", args.post_path, "%s:%d" % (args.host, args.port), "https" if args.tls else "http")
    connection_cases = {
        "data_on_stream_0": (frame(DATA, 0, 0, b"x"), "PROTOCOL_ERROR"),                          # 6.1
        "headers_on_even_stream": (frame(HEADERS, END_STREAM | END_HEADERS, 2, get), "PROTOCOL_ERROR"),  # 5.1.1
        "frame_larger_than_max_frame_size": (frame(HEADERS, END_HEADERS, 1, get + b"\0" * 16384), "FRAME_SIZE_ERROR"),  # 4.2
        "window_update_0_on_connection": (window_update(0, 0), "PROTOCOL_ERROR"),                 # 6.9
        "window_update_overflow": (window_update(0, MAX_STREAM_ID), "FLOW_CONTROL_ERROR"),        # 6.9.1
        "ping_length_7": (frame(PING, 0, 0, b"\0" * 7), "FRAME_SIZE_ERROR"),                      # 6.7
        "settings_length_5": (frame(SETTINGS, 0, 0, b"\0" * 5), "FRAME_SIZE_ERROR"),              # 6.5
        "settings_ack_with_payload": (settings_frame([(SETTINGS_ENABLE_PUSH, 0)], ACK), "FRAME_SIZE_ERROR"),  # 6.5
        "settings_initial_window_2_31": (settings_frame([(SETTINGS_INITIAL_WINDOW_SIZE, 2**31)]), "FLOW_CONTROL_ERROR"),  # 6.5.2
        "settings_enable_push_2": (settings_frame([(SETTINGS_ENABLE_PUSH, 2)]), "PROTOCOL_ERROR"),  # 6.5.2
        "rst_stream_on_idle_stream": (rst_stream(5, 8), "PROTOCOL_ERROR"),                        # 6.4
        "data_on_idle_stream": (frame(DATA, END_STREAM, 1, b"x"), "PROTOCOL_ERROR"),              # 5.1
        "continuation_without_headers": (frame(CONTINUATION, END_HEADERS, 1, get), "PROTOCOL_ERROR"),  # 6.10
        "headers_interrupted_by_ping": (frame(HEADERS, END_STREAM, 1, get) + frame(PING, 0, 0, b"\0" * 8),
                                        "PROTOCOL_ERROR"),                                        # 6.10
        # Stream 3 was never opened, and 5's HEADERS closed it: an identifier going back (5.1.1).
        "headers_on_lower_stream": (frame(HEADERS, END_STREAM | END_HEADERS, 5, get) +
                                    frame(HEADERS, END_STREAM | END_HEADERS, 3, get), "PROTOCOL_ERROR"),  # 5.1.1
        # Stream 1 answered and closed, both sides ended it: a new header block on it (5.1).
        "headers_on_finished_stream": ((frame(HEADERS, END_STREAM | END_HEADERS, 1, get),
                                        frame(HEADERS, END_STREAM | END_HEADERS, 1, get)), "STREAM_CLOSED"),  # 5.1
    }
    stream_cases = {
        "window_update_0_on_stream": (frame(HEADERS, END_HEADERS, 1, post) + window_update(1, 0), "PROTOCOL_ERROR"),  # 6.9
        "uppercase_header_name": (frame(HEADERS, END_STREAM | END_HEADERS, 1, get + hpack_literal("X-Upper", "1")),
                                  "PROTOCOL_ERROR"),                                              # 8.2.1
        "stream_depends_on_itself": (frame(HEADERS, END_HEADERS, 1, post) + priority(1, 1), "PROTOCOL_ERROR"),  # 5.3.1
        "idle_stream_depends_on_itself": (priority(1, 1), "PROTOCOL_ERROR"),                       # 5.3.1
        "headers_depend_on_itself": (frame(HEADERS, END_STREAM | END_HEADERS | PRIORITY_FLAG, 1,
                                           struct.pack(">IB", 1, 15) + get), "PROTOCOL_ERROR"),    # 5.3.1
        "data_after_end_stream": (frame(HEADERS, END_STREAM | END_HEADERS, 1, get) + frame(DATA, 0, 1, b"x"),
                                  "STREAM_CLOSED"),                                               # 5.1
    }
    def opened(data):
        """DATA after the preface; a pair (the second part waits for stream 1's end) keeps its parts."""
        return (start + data[0], data[1]) if isinstance(data, tuple) else start + data

    cases = {name: (opened(data), code, "connection") for name, (data, code) in connection_cases.items()}
    cases.update({name: (opened(data), code, "stream") for name, (data, code) in stream_cases.items()})
    # Why a PING after it: its ACK shows the unknown frame was read and ignored (RFC 9113 section 4.1).
    cases["unknown_frame_type_is_ignored"] = (start + frame(0xFA, 0, 0, b"x") + frame(PING, 0, 0, b"\0" * 8),
                                              "none", "none")
    # Why ignored: we reset stream 1 (its uppercase field name), and the client may have sent its trailers
    # before it saw that; RFC 9113 section 5.1 says to ignore frames on a stream we reset.
    cases["trailers_after_our_reset_are_ignored"] = (
        start + frame(HEADERS, END_HEADERS, 1, post + hpack_literal("X-Upper", "1")) +
        frame(HEADERS, END_STREAM | END_HEADERS, 1, hpack_literal("x-trailer", "1")) + frame(PING, 0, 0, b"\0" * 8),
        "none", "none")
    results = run_cases(args, cases)["cases"]
    return {"cases": results}


def matches(result):
    """Whether the server's answer is the one RFC 9113 asks for: the expected code in a GOAWAY
    (connection scope) or in a RST_STREAM or GOAWAY (stream scope); for a bad preface, that GOAWAY or
    a close without one; for ignored frames, no error and the PING after them answered."""
    expected = result["expected"]
    goaway_code = (result.get("goaway") or {}).get("error")
    if expected["scope"] == "preface":
        return goaway_code == expected["error"] or (goaway_code is None and result["closed_by_server"])
    if expected["scope"] == "none":
        return result.get("ping_acks", 0) > 0 and goaway_code is None
    if expected["scope"] == "connection":
        return goaway_code == expected["error"]
    return goaway_code == expected["error"] or expected["error"] in result.get("rst_streams", {}).values()


# ---------------------------------------------------------------------------------------------

def after_check(args):
    """On a NEW connection, GET --path: {"status", "ms"} or {"error"}: the server stays responsive."""
    start = time.monotonic()
    try:
        conn = Connection(args)
    except DriverError as error:
        return {"status": None, "error": str(error), "ms": now_ms(start)}
    try:
        stream_id = conn.request(args.path)
        conn.read(until=lambda: conn.done(stream_id) or conn.finished())
        response = conn.responses.get(stream_id, {})
        result = {"status": response.get("status"), "ms": now_ms(start)}
        if not conn.done(stream_id):
            result["error"] = "no complete response within %gs (%s)" % (args.wait, conn.read_stopped)
        elif stream_id in conn.rst_streams:
            result["error"] = "RST_STREAM " + conn.rst_streams[stream_id]["error"]
        return result
    finally:
        conn.close()


SCENARIOS = {
    "get": (scenario_get, 0), "concurrent": (scenario_concurrent, 1), "rapid_reset": (scenario_rapid_reset, 1),
    "continuation_flood": (scenario_continuation_flood, 1), "hpack_bomb": (scenario_hpack_bomb, None),
    "settings_flood": (scenario_settings_flood, 1), "ping_flood": (scenario_ping_flood, 1),
    "priority_flood": (scenario_priority_flood, 1), "window_update_flood": (scenario_window_update_flood, 1),
    "empty_data_flood": (scenario_empty_data_flood, 1), "zero_window": (scenario_zero_window, 0),
    "stream_id_exhaustion": (scenario_stream_id_exhaustion, None), "never_read": (scenario_never_read, None),
    "post": (scenario_post, 1), "post_concurrent": (scenario_post_concurrent, 2),
    "stalled_post": (scenario_stalled_post, 1), "reset_on_signal": (scenario_reset_on_signal, 0),
    "bad_preface": (scenario_bad_preface, 0), "bad_frames": (scenario_bad_frames, 0),
}


def parse_args(argv):
    """The command line; SCENARIO's numbers are checked against what it takes."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="scenarios: " + ", ".join(SCENARIOS))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tls", action="store_true", help="TLS with ALPN h2 (certificate not verified)")
    parser.add_argument("--wait", type=float, default=5.0, help="bound of every wait, seconds (default 5)")
    parser.add_argument("--quiet", type=float, default=1.0,
                        help="after a flood, stop reading once nothing arrived for this long (default 1)")
    parser.add_argument("--path", default="/", help="GET path, and the after check's (default /)")
    parser.add_argument("--large-path", default="/large", help="a large response, for zero_window and never_read")
    parser.add_argument("--post-path", default="/echo", help="a route echoing the request body (default /echo)")
    parser.add_argument("--header", action="append", default=[],
                        help="post, post_concurrent: one more request field, name:value (repeatable)")
    parser.add_argument("--no-length", action="store_true", help="post, post_concurrent: send no content-length")
    parser.add_argument("--frame-bytes", type=int, default=1024, help="continuation_flood: bytes per frame")
    parser.add_argument("--case", help="bad_frames, bad_preface: run only this case")
    parser.add_argument("--max-listed", type=int, default=50, help="streams listed one by one in the JSON")
    parser.add_argument("--no-after", action="store_true", help="skip the after check")
    parser.add_argument("--signal", help="reset_on_signal: the file whose appearance says: reset the stream now")
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("numbers", nargs="*", type=int)
    args = parser.parse_args(argv)
    wanted = SCENARIOS[args.scenario][1]
    if wanted is None and len(args.numbers) > 1 or wanted is not None and len(args.numbers) != wanted:
        parser.error("%s takes %s number(s), got %d" % (args.scenario, "0 or 1" if wanted is None else wanted,
                                                         len(args.numbers)))
    if args.scenario == "reset_on_signal" and not args.signal:
        parser.error("reset_on_signal needs --signal FILE")
    if any(number < 0 for number in args.numbers):
        parser.error("numbers must not be negative")
    if args.scenario == "stream_id_exhaustion" and args.numbers and not 1 <= args.numbers[0] <= 1000:
        parser.error("stream_id_exhaustion takes 1 to 1000 streams")
    return args


def main(argv):
    """Runs the scenario and the after check; prints the JSON object."""
    args = parse_args(argv)
    output = {"scenario": args.scenario, "args": args.numbers,
              "target": {"host": args.host, "port": args.port, "tls": args.tls}}
    status = 0
    try:
        output.update(SCENARIOS[args.scenario][0](args))
    except DriverError as error:
        output["driver_error"] = str(error)
        status = 1
    except Exception as error:  # Why: a bug here must still print JSON and fail, not look like the server's doing
        output["driver_error"] = "%s: %s" % (type(error).__name__, error)
        status = 1
    if not args.no_after and status == 0:
        try:
            output["after"] = after_check(args)
        except Exception as error:  # Why: as above, a bug in the check is the driver's failure
            output["driver_error"] = "after check: %s: %s" % (type(error).__name__, error)
            status = 1
    print(json.dumps(output, sort_keys=False))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

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

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
MAX_STREAM_ID = 2**31 - 1

# Frame types (RFC 9113 section 6) and flags.
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
FRAME_NAMES = ["DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY",
               "WINDOW_UPDATE", "CONTINUATION"]
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20
SETTINGS_ENABLE_PUSH, SETTINGS_INITIAL_WINDOW_SIZE = 0x2, 0x4


class DriverError(Exception):
    """The driver could not run the scenario (not the server's answer): exit status 1."""


def error_name(code):
    """RFC 9113 section 7 name of an error code, or its hex for an unknown one."""
    try:
        return h2.errors.ErrorCodes(code).name
    except ValueError:
        return "0x%x" % code


def now_ms(start):
    """Milliseconds since START (time.monotonic()), rounded to 0.1 ms."""
    return round((time.monotonic() - start) * 1000, 1)


# ---------------------------------------------------------------------------------------------
# The raw encoder: frames and HPACK bytes written by hand, for what h2's API refuses to send.

def frame(frame_type, flags, stream_id, payload=b"", length=None):
    """One frame: the 9-byte header (24-bit length, type, flags, 31-bit stream id) and PAYLOAD.
    LENGTH overrides the length field (to lie about it)."""
    length = len(payload) if length is None else length
    return struct.pack(">I", length)[1:] + bytes([frame_type, flags]) + struct.pack(">I", stream_id) + payload


def settings_frame(pairs, flags=0):
    """A SETTINGS frame carrying (identifier, value) PAIRS."""
    return frame(SETTINGS, flags, 0, b"".join(struct.pack(">HI", key, value) for key, value in pairs))


def window_update(stream_id, increment):
    """A WINDOW_UPDATE frame (INCREMENT may be 0 or too big: nothing is checked)."""
    return frame(WINDOW_UPDATE, 0, stream_id, struct.pack(">I", increment))


def rst_stream(stream_id, code):
    """A RST_STREAM frame with error CODE."""
    return frame(RST_STREAM, 0, stream_id, struct.pack(">I", code))


def priority(stream_id, depends_on, weight=15, exclusive=False):
    """A PRIORITY frame: STREAM_ID depends on DEPENDS_ON."""
    return frame(PRIORITY, 0, stream_id, struct.pack(">IB", depends_on | (0x80000000 if exclusive else 0), weight))


def hpack_int(value, prefix_bits, first_byte):
    """HPACK integer (RFC 7541 section 5.1) in a PREFIX_BITS prefix, FIRST_BYTE holding the flag bits."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first_byte | value])
    out = [first_byte | limit]
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def hpack_string(text):
    """HPACK string literal, not Huffman-coded."""
    data = text if isinstance(text, bytes) else text.encode()
    return hpack_int(len(data), 7, 0) + data


def hpack_literal(name, value, index_it=False):
    """A header field with a literal name: with incremental indexing (it enters the dynamic table)
    when INDEX_IT, else without indexing (the table is left alone)."""
    return (b"\x40" if index_it else b"\x00") + hpack_string(name) + hpack_string(value)


def hpack_request(method, path, authority, scheme, extra=()):
    """A request's header block using only the static table and literals without indexing, so it
    leaves the server's dynamic table as h2's own encoder believes it is."""
    static_names = {":authority": 1, ":method": 2, ":path": 4, ":scheme": 6}
    block = b""
    for name, value in [(":method", method), (":scheme", scheme), (":path", path), (":authority", authority)]:
        block += hpack_int(static_names[name], 4, 0x00) + hpack_string(value)
    for name, value in extra:
        block += hpack_literal(name, value)
    return block


# ---------------------------------------------------------------------------------------------
# The connection: a socket, h2's state machine, and a recorder of every frame the server sends.

class Connection:
    """One HTTP/2 connection to the server. `h2` is h2's state machine (it writes the preface, our
    SETTINGS and the requests made with `request`). Every received frame is parsed and recorded
    here (goaway, rst_streams, responses, acks, closed); the bytes are also fed to h2 when
    `feed_h2` (scenarios whose traffic h2 made itself, so it keeps the flow-control windows and
    answers SETTINGS and PING). Without h2, this acknowledges the server's SETTINGS itself and,
    with `auto_window`, gives back flow-control credit for each DATA frame."""

    def __init__(self, args, feed_h2=True, auto_window=True, settings=None, preface=True):
        self.args = args
        self.start = time.monotonic()
        self.feed_h2 = feed_h2
        self.auto_window = auto_window
        self.authority = "%s:%d" % (args.host, args.port)
        self.scheme = "https" if args.tls else "http"
        self.sock = self._connect()
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.h2 = h2.connection.H2Connection(config=config)
        values = {h2.settings.SettingCodes.ENABLE_PUSH: 0, h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1 << 20,
                  h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: 1 << 16}
        values.update(settings or {})
        self.h2.local_settings = h2.settings.Settings(client=True, initial_values=values)
        self.buffer = b""
        self.header_block = None  # [stream id, first frame's type, bytes so far, END_STREAM] while a block is open
        self.decoder = hpack.Decoder(max_header_list_size=1 << 30)
        self.closed = None
        self.read_stopped = None
        self.bytes_received = 0
        self.frames_received = {}
        self.goaway = None
        self.rst_streams = {}
        self.responses = {}
        self.settings_received = None
        self.settings_acks = 0
        self.ping_acks = 0
        self.window_updates = 0
        self.http1_answer = None
        self.h2_error = None
        self.send_problem = None
        if preface:
            self.h2.initiate_connection()
            self.flush()

    def _connect(self):
        """TCP (and TLS with ALPN h2) to --host:--port, bounded by --wait."""
        try:
            raw = socket.create_connection((self.args.host, self.args.port), timeout=self.args.wait)
        except OSError as error:
            raise DriverError("connect to %s failed: %s" % (self.authority, error))
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if not self.args.tls:
            return raw
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.set_alpn_protocols(["h2"])
        try:
            sock = context.wrap_socket(raw, server_hostname="localhost")
        except (OSError, ssl.SSLError) as error:
            raise DriverError("TLS handshake with %s failed: %s" % (self.authority, error))
        if sock.selected_alpn_protocol() != "h2":
            raise DriverError("ALPN chose %r, not h2" % sock.selected_alpn_protocol())
        return sock

    # -- sending ---------------------------------------------------------------------------------

    def send(self, data, label=None):
        """Sends DATA, waiting at most --wait for the server to take it. Returns False (and records
        why in send_problem) when the server stopped reading or closed the connection."""
        if self.send_problem or self.closed:
            return False
        self.sock.settimeout(self.args.wait)
        try:
            self.sock.sendall(data)
            return True
        except socket.timeout:
            self.send_problem = {"what": "blocked", "during": label, "ms": now_ms(self.start)}
        except OSError as error:
            self.send_problem = {"what": type(error).__name__, "during": label, "ms": now_ms(self.start)}
        return False

    def flush(self):
        """Sends whatever h2 has queued (requests, acknowledgements, window updates)."""
        data = self.h2.data_to_send()
        return self.send(data) if data else True

    def send_frames(self, frames, label, batch=64 * 1024):
        """Sends an iterable of frames in batches of about BATCH bytes without reading anything.
        Returns how many frames went out before the server stopped taking them."""
        pending, size, count, sent = [], 0, 0, 0
        for data in frames:
            pending.append(data)
            size += len(data)
            count += 1
            if size >= batch:
                if not self.send(b"".join(pending), label):
                    return sent
                sent, pending, size = count, [], 0
        if pending and self.send(b"".join(pending), label):
            sent = count
        return sent

    def request(self, path, method="GET", end_stream=True, extra=()):
        """Opens a stream with h2's API; returns its id."""
        stream_id = self.h2.get_next_available_stream_id()
        headers = [(":method", method), (":scheme", self.scheme), (":path", path), (":authority", self.authority)]
        self.h2.send_headers(stream_id, headers + list(extra), end_stream=end_stream)
        self.responses[stream_id] = {"status": None}
        self.flush()
        return stream_id

    # -- receiving -------------------------------------------------------------------------------

    def read(self, until=lambda: False, timeout=None, quiet=None):
        """Reads and records frames until UNTIL() is true, the server closes, TIMEOUT seconds pass
        (default --wait), or nothing arrives for QUIET seconds. Sets read_stopped to the reason."""
        deadline = time.monotonic() + (self.args.wait if timeout is None else timeout)
        last = time.monotonic()
        while True:
            if until():
                self.read_stopped = "done"
                return
            if self.closed:
                self.read_stopped = "closed"
                return
            now = time.monotonic()
            if now >= deadline:
                self.read_stopped = "deadline"
                return
            if quiet is not None and now - last >= quiet:
                self.read_stopped = "quiet"
                return
            wait = deadline - now if quiet is None else min(deadline - now, quiet - (now - last))
            data = self._receive(max(wait, 0.001))
            if data:
                last = time.monotonic()
                self._take(data)

    def _receive(self, wait):
        """One receive of at most WAIT seconds: bytes, or b"" when nothing came (closed is set on EOF)."""
        pending = self.args.tls and self.sock.pending()
        if not pending and not select.select([self.sock], [], [], wait)[0]:
            return b""
        self.sock.settimeout(wait)
        try:
            data = self.sock.recv(1 << 16)
        except (socket.timeout, ssl.SSLWantReadError):
            return b""
        except OSError as error:
            self.closed = {"how": type(error).__name__, "ms": now_ms(self.start)}
            return b""
        if not data:
            self.closed = {"how": "eof", "ms": now_ms(self.start)}
        return data

    def _take(self, data):
        """Records the frames in DATA (and feeds h2 if asked)."""
        self.bytes_received += len(data)
        if self.bytes_received == len(data) and data[:5] == b"HTTP/":
            # Why: a server that took our bytes for HTTP/1.1 answers in HTTP/1.1.
            self.http1_answer = data.split(b"\r\n", 1)[0].decode(errors="replace")
        if self.http1_answer:
            return
        if self.feed_h2 and not self.h2_error:
            try:
                for event in self.h2.receive_data(data):
                    if isinstance(event, h2.events.DataReceived) and event.flow_controlled_length:
                        self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            except h2.exceptions.H2Error as error:
                self.h2_error = "%s: %s" % (type(error).__name__, error)
            self.flush()
        self.buffer += data
        replies, offset = [], 0
        while len(self.buffer) - offset >= 9:
            length = int.from_bytes(self.buffer[offset:offset + 3], "big")
            if len(self.buffer) - offset < 9 + length:
                break
            frame_type, flags = self.buffer[offset + 3], self.buffer[offset + 4]
            stream_id = int.from_bytes(self.buffer[offset + 5:offset + 9], "big") & MAX_STREAM_ID
            replies += self._record(frame_type, flags, stream_id, self.buffer[offset + 9:offset + 9 + length])
            offset += 9 + length
        self.buffer = self.buffer[offset:]
        if replies and not self.feed_h2:
            self.send(b"".join(replies), "acknowledgements")

    def _record(self, frame_type, flags, stream_id, payload):
        """Records one frame; returns the frames to answer with when h2 is not fed."""
        name = FRAME_NAMES[frame_type] if frame_type < len(FRAME_NAMES) else "0x%x" % frame_type
        self.frames_received[name] = self.frames_received.get(name, 0) + 1
        ms = now_ms(self.start)
        if frame_type == GOAWAY and len(payload) >= 8:
            # Why the last one: a graceful shutdown sends two, the second with the real last stream id.
            last, code = struct.unpack(">II", payload[:8])
            self.goaway = {"error": error_name(code), "last_stream_id": last & MAX_STREAM_ID,
                           "debug": payload[8:200].decode(errors="replace"), "ms": ms}
        elif frame_type == RST_STREAM and len(payload) == 4:
            self.rst_streams[stream_id] = {"error": error_name(struct.unpack(">I", payload)[0]), "ms": ms}
        elif frame_type == SETTINGS:
            if flags & ACK:
                self.settings_acks += 1
            else:
                if self.settings_received is None:
                    self.settings_received = {}
                    for offset in range(0, len(payload) - 5, 6):
                        key, value = struct.unpack(">HI", payload[offset:offset + 6])
                        try:
                            key = h2.settings.SettingCodes(key).name
                        except ValueError:
                            key = "0x%x" % key
                        self.settings_received[key] = value
                return [settings_frame([], ACK)]
        elif frame_type == PING and flags & ACK:
            self.ping_acks += 1
        elif frame_type == WINDOW_UPDATE:
            self.window_updates += 1
        elif frame_type in (HEADERS, PUSH_PROMISE, CONTINUATION):
            self._header_fragment(frame_type, flags, stream_id, payload, ms)
        elif frame_type == DATA:
            response = self.responses.setdefault(stream_id, {"status": None})
            response["body_length"] = response.get("body_length", 0) + self._unpad(flags, payload, 0)
            if flags & END_STREAM:
                response["end_ms"] = ms
            if self.auto_window and payload:
                return [window_update(0, len(payload))] + ([] if flags & END_STREAM else [window_update(stream_id, len(payload))])
        return []

    @staticmethod
    def _unpad(flags, payload, skip):
        """Length of the content of a (maybe padded) frame, after SKIP bytes of fixed fields."""
        pad = payload[0] + 1 if flags & PADDED and payload else 0
        return max(len(payload) - pad - skip, 0)

    def _header_fragment(self, frame_type, flags, stream_id, payload, ms):
        """Gathers a header block (HEADERS or PUSH_PROMISE, then CONTINUATION) and decodes it when complete."""
        if frame_type == CONTINUATION:
            if not self.header_block:
                return
            self.header_block[2] += payload
        else:
            start = (1 if flags & PADDED else 0) + (5 if frame_type == HEADERS and flags & PRIORITY_FLAG else 0)
            start += 4 if frame_type == PUSH_PROMISE else 0
            end = len(payload) - (payload[0] if flags & PADDED and payload else 0)
            self.header_block = [stream_id, frame_type, payload[start:end], flags & END_STREAM]
        if not flags & END_HEADERS:
            return
        stream_id, first_type, block, ended = self.header_block
        self.header_block = None
        try:
            headers = self.decoder.decode(block, raw=False)
        except hpack.HPACKError as error:
            headers = [("x-driver-hpack-error", str(error))]
        if first_type == PUSH_PROMISE:
            return
        response = self.responses.setdefault(stream_id, {"status": None})
        status = dict(headers).get(":status")
        if status is not None and status.startswith("1"):  # an interim response (100 Continue)
            response.setdefault("interim", []).append(int(status))
        elif response.get("status") is None and status is not None:
            response["status"] = int(status)
            response["headers"] = {name: value for name, value in headers if not name.startswith(":")}
            response["first_ms"] = ms
        if ended:
            response["end_ms"] = ms

    # -- reporting -------------------------------------------------------------------------------

    def done(self, stream_id):
        """True when STREAM_ID has ended (END_STREAM or RST_STREAM)."""
        return stream_id in self.rst_streams or "end_ms" in self.responses.get(stream_id, {})

    def finished(self):
        """True when the connection cannot make progress: closed, or a GOAWAY with an error (after a
        graceful GOAWAY, NO_ERROR, the streams it covers may still be answered)."""
        return bool(self.closed or self.goaway and self.goaway["error"] != "NO_ERROR")

    def report(self):
        """The JSON fields every scenario shares: what the server sent and whether it closed."""
        limit = self.args.max_listed
        rst_counts, status_counts = {}, {}
        for entry in self.rst_streams.values():
            rst_counts[entry["error"]] = rst_counts.get(entry["error"], 0) + 1
        for response in self.responses.values():
            key = str(response.get("status"))
            status_counts[key] = status_counts.get(key, 0) + 1
        listed = sorted(self.responses)[:limit]
        # Why headers only for the first: a JSON line with 50 copies of the same headers helps nobody.
        responses = {str(sid): {key: value for key, value in self.responses[sid].items()
                                if key != "headers" or sid == listed[0]} for sid in listed}
        return {
            "goaway": self.goaway,
            "rst_streams": {str(sid): entry["error"] for sid, entry in sorted(self.rst_streams.items())[:limit]},
            "rst_stream_counts": rst_counts,
            "responses": responses,
            "status_counts": status_counts,
            "closed_by_server": bool(self.closed),
            "closed": self.closed,
            "read_stopped": self.read_stopped,
            "send_problem": self.send_problem,
            "settings": self.settings_received,
            "settings_acks": self.settings_acks,
            "ping_acks": self.ping_acks,
            "window_updates": self.window_updates,
            "frames_received": self.frames_received,
            "bytes_received": self.bytes_received,
            "http1_answer": self.http1_answer,
            "h2_error": self.h2_error,
            "elapsed_ms": now_ms(self.start),
        }

    def close(self):
        """Closes the socket (never raises)."""
        try:
            self.sock.close()
        except OSError:
            pass


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

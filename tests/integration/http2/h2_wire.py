"""The wire side of h2_frames_client.py: a frame encoder and HPACK bytes written by hand (for what
the h2 package refuses to send), and Connection, which speaks to the server and records every frame
it sends back. Imported by h2_frames_client.py, which holds the scenarios."""

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

#!/usr/bin/python3
"""WebSocket over HTTP/2 (RFC 8441) test driver: opens WebSockets by extended CONNECT with the `h2`
package (python3-h2; the HTTP/2 layer) and speaks RFC 6455 frames written here over the streams'
DATA, then prints ONE JSON object, one key per scenario.

usage: ws_h2_client.py --port N [--tls] [--path /ws] [--signal-pid P] SCENARIO...

Scenarios (each on its own HTTP/2 connection):
  settings    the server's SETTINGS_ENABLE_CONNECT_PROTOCOL:      {"enable_connect_protocol": v}
  echo        CONNECT --path; text, binary (every byte value), a text in 3 fragments with a ping
              between them, a ping, then a close with 4001 "bye":
              {"status", "text", "binary_equal", "fragmented", "pong", "close_code", "stream_ended"}
  large       a 300 KB binary message (past both flow-control windows) echoed: {"size", "equal"}
  deflate     offers permessage-deflate; a compressed text echoed: {"extensions", "equal", "compressed_reply"}
  concurrent  4 WebSockets and a GET /plaintext on one connection, 20 messages each, interleaved:
              {"sockets", "echoed", "get_status"}
  limited     4 WebSockets on one connection, then the first closed (1000) and one more:
              {"statuses": [s1, s2, s3, s4], "after_close": s}
  refusals    statuses of: a plain GET of --path, CONNECT with :protocol "foo", CONNECT websocket to
              /plaintext, and version 8 (with its sec-websocket-version answer)
  reset       a WebSocket reset by the client (RST_STREAM CANCEL), then another on the same
              connection echoes, and GET /metrics on it says how many are open:
              {"after_reset": text, "open": n}
  handlers    the probe plugin's /three (three messages, then the handler returns) and /throw
              (throws after accepting): {"three": [...], "three_close": c, "throw_close": c}
  drain       opens a WebSocket, sends SIGTERM to --signal-pid, and reports the close it gets,
              whether the stream then ended, and the GOAWAY's code: {"close_code", "stream_ended", "goaway"}
  cycles      --count WebSockets one after another on one connection, each: one message (--size
              bytes; every --big-every-th 1 MiB), its answer, the close handshake, the stream's end.
              --kind echo expects the message back; --kind pubsub subscribes to a channel and
              publishes the message to it, expecting it delivered: {"cycles": n, "answered": n}
  drain_abrupt  opens two WebSockets, sends SIGTERM to --signal-pid, reads the first's close,
              then closes the TCP connection without answering: {"close_code"}

Exit status: 0 when every scenario ran (a scenario that failed says {"error": "..."}), 1 when the
driver could not run at all, 2 for bad arguments.
"""

import argparse
import json
import os
import signal
import socket
import ssl
import struct
import sys
import time
import zlib

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings

TEXT, BINARY, CONTINUATION, CLOSE, PING, PONG = 0x1, 0x2, 0x0, 0x8, 0x9, 0xA

# Why: h2 takes any GOAWAY as the connection's end and refuses the frames after it, but RFC 9113
# section 6.8 lets the streams it spares finish: a drain's GOAWAY(NO_ERROR) spares the open
# WebSockets, whose close handshakes the drain scenario watches. A GOAWAY with an error still ends
# the scenario (Connection.closed).
h2.connection.H2ConnectionStateMachine._transitions[
    (h2.connection.ConnectionState.CLIENT_OPEN, h2.connection.ConnectionInputs.RECV_GOAWAY)] = (
        None, h2.connection.ConnectionState.CLIENT_OPEN)


class ScenarioError(Exception):
    """The server did something the scenario did not expect: reported as {"error": ...}."""


def ws_frame(opcode, payload, fin=True, rsv1=False):
    """A client frame: masked, as RFC 6455 section 5.3 requires of clients (RFC 8441 changes nothing)."""
    first = (0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode
    size = len(payload)
    if size < 126:
        head = bytes([first, 0x80 | size])
    elif size < 65536:
        head = bytes([first, 0x80 | 126]) + struct.pack("!H", size)
    else:
        head = bytes([first, 0x80 | 127]) + struct.pack("!Q", size)
    mask = os.urandom(4)
    return head + mask + masked_bytes(payload, mask)


def masked_bytes(payload, mask):
    """PAYLOAD xor MASK repeated (RFC 6455 section 5.3), as whole integers: a MiB takes milliseconds."""
    size = len(payload)
    if size == 0:
        return b""
    key = (mask * (size // 4 + 1))[:size]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(size, "big")


def parse_frames(buffer):
    """Whole server frames at the front of BUFFER (a bytearray, consumed): [(fin, rsv1, opcode, payload)]."""
    frames = []
    while len(buffer) >= 2:
        first, second = buffer[0], buffer[1]
        if second & 0x80:
            raise ScenarioError("the server masked a frame")
        size, at = second & 0x7F, 2
        if size == 126:
            if len(buffer) < 4:
                break
            size, at = struct.unpack("!H", bytes(buffer[2:4]))[0], 4
        elif size == 127:
            if len(buffer) < 10:
                break
            size, at = struct.unpack("!Q", bytes(buffer[2:10]))[0], 10
        if len(buffer) < at + size:
            break
        frames.append((bool(first & 0x80), bool(first & 0x40), first & 0x0F, bytes(buffer[at:at + size])))
        del buffer[:at + size]
    return frames


class Connection:
    """One HTTP/2 connection: the h2 state machine over a socket, events gathered per stream."""

    def __init__(self, args):
        self.args = args
        raw = socket.create_connection((args.host, args.port), timeout=args.wait)
        # Why: a close or an acknowledgement written behind an unacknowledged small write waits
        # for the server's delayed ACK under Nagle (tens of ms each: the cycles scenario's whole cost).
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if args.tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE  # Why: the tests' certificate is self-signed
            context.set_alpn_protocols(["h2"])
            raw = context.wrap_socket(raw, server_hostname="localhost")
            if raw.selected_alpn_protocol() != "h2":
                raise ScenarioError("no h2 by ALPN")
        self.sock = raw
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.h2.initiate_connection()
        self.flush()
        self.remote_settings = None
        self.responses = {}    # stream id -> {"status": int, "headers": {name: value}}
        self.data = {}         # stream id -> bytearray of DATA not yet parsed
        self.ended = set()     # streams the server ended (END_STREAM)
        self.reset = {}        # stream id -> error code of the server's RST_STREAM
        self.closed = False
        self.goaway = None     # the error code of the server's GOAWAY
        self.pump(lambda: self.remote_settings is not None, "the server's SETTINGS")

    def flush(self):
        out = self.h2.data_to_send()
        if out:
            self.sock.sendall(out)

    def pump(self, done, what):
        """Reads and handles events until DONE() holds; ScenarioError after --wait seconds or at a close."""
        until = time.monotonic() + self.args.wait
        while not done():
            if self.closed:
                raise ScenarioError("the connection closed while waiting for " + what)
            left = until - time.monotonic()
            if left <= 0:
                raise ScenarioError("timed out waiting for " + what)
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                self.closed = True
                continue
            for event in self.h2.receive_data(chunk):
                self.handle(event)
            self.flush()

    def handle(self, event):
        if isinstance(event, h2.events.RemoteSettingsChanged):
            self.remote_settings = {int(code): change.new_value for code, change in event.changed_settings.items()}
        elif isinstance(event, h2.events.ResponseReceived):
            fields = dict(event.headers)
            self.responses[event.stream_id] = {"status": int(fields[":status"]), "headers": fields}
        elif isinstance(event, h2.events.DataReceived):
            self.data.setdefault(event.stream_id, bytearray()).extend(event.data)
            # Why at once: the server's window for us reopens as we read, like a socket's.
            self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            self.ended.add(event.stream_id)
        elif isinstance(event, h2.events.StreamReset):
            self.reset[event.stream_id] = int(event.error_code)
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.goaway = int(event.error_code)
            if event.error_code != 0:
                self.closed = True

    def request(self, headers, end_stream=False):
        stream_id = self.h2.get_next_available_stream_id()
        self.h2.send_headers(stream_id, headers, end_stream=end_stream)
        self.flush()
        return stream_id

    def answer(self, stream_id):
        self.pump(lambda: stream_id in self.responses or stream_id in self.reset, "the response")
        if stream_id not in self.responses:
            raise ScenarioError("stream reset with code %d instead of an answer" % self.reset[stream_id])
        return self.responses[stream_id]

    def close(self):
        try:
            self.h2.close_connection()
            self.flush()
            self.sock.close()
        except OSError:
            pass


def connect_headers(args, path, protocol="websocket", version="13", extra=()):
    scheme = "https" if args.tls else "http"
    return [(":method", "CONNECT"), (":protocol", protocol), (":scheme", scheme), (":path", path),
            (":authority", "localhost"), ("sec-websocket-version", version)] + list(extra)


class WebSocket:
    """One WebSocket on one stream of CONN."""

    def __init__(self, conn, path, extra=()):
        self.conn = conn
        self.stream_id = conn.request(connect_headers(conn.args, path, extra=extra))
        self.response = conn.answer(self.stream_id)
        self.status = self.response["status"]
        self.frames = []

    def send(self, opcode, payload, fin=True, rsv1=False):
        """Sends one frame as flow control allows (h2 keeps the windows)."""
        data = ws_frame(opcode, payload, fin, rsv1)
        while data:
            room = min(self.conn.h2.local_flow_control_window(self.stream_id), self.conn.h2.max_outbound_frame_size)
            if room <= 0:
                self.conn.pump(lambda: self.conn.h2.local_flow_control_window(self.stream_id) > 0, "window")
                continue
            self.conn.h2.send_data(self.stream_id, data[:room])
            data = data[room:]
            self.conn.flush()

    def next_frame(self):
        def have():
            buffer = self.conn.data.get(self.stream_id, bytearray())
            self.frames.extend(parse_frames(buffer))
            return bool(self.frames) or self.stream_id in self.conn.ended or self.stream_id in self.conn.reset
        self.conn.pump(have, "a frame on stream %d" % self.stream_id)
        if not self.frames:
            raise ScenarioError("stream %d ended without a frame" % self.stream_id)
        return self.frames.pop(0)

    def message(self):
        """The next whole data message (pongs are returned as ("pong", payload))."""
        parts, first_opcode, compressed = [], None, False
        while True:
            fin, rsv1, opcode, payload = self.next_frame()
            if opcode == PONG:
                return "pong", payload, False
            if opcode == CLOSE:
                return "close", payload, False
            if opcode != CONTINUATION:
                first_opcode, compressed = opcode, rsv1
            parts.append(payload)
            if fin:
                data = b"".join(parts)
                if compressed:
                    data = zlib.decompressobj(-15).decompress(data + b"\x00\x00\xff\xff")
                return ("text" if first_opcode == TEXT else "binary"), data, compressed

    def stream_ended(self):
        self.conn.pump(lambda: self.stream_id in self.conn.ended or self.stream_id in self.conn.reset, "the end")
        return self.stream_id in self.conn.ended


def scenario_settings(args):
    conn = Connection(args)
    try:
        return {"enable_connect_protocol": conn.remote_settings.get(0x8)}
    finally:
        conn.close()


def scenario_echo(args):
    conn = Connection(args)
    try:
        ws = WebSocket(conn, args.path)
        result = {"status": ws.status}
        ws.send(TEXT, "hello over h2".encode())
        result["text"] = ws.message()[1].decode()
        every_byte = bytes(range(256))
        ws.send(BINARY, every_byte)
        result["binary_equal"] = ws.message()[1] == every_byte
        ws.send(TEXT, b"frag", fin=False)
        ws.send(PING, b"between")
        ws.send(CONTINUATION, b"ment", fin=False)
        ws.send(CONTINUATION, b"ed", fin=True)
        kind, payload, _ = ws.message()
        result["pong_between"] = kind == "pong" and payload == b"between"
        result["fragmented"] = ws.message()[1].decode()
        ws.send(PING, b"are you there")
        kind, payload, _ = ws.message()
        result["pong"] = payload.decode() if kind == "pong" else kind
        ws.send(CLOSE, struct.pack("!H", 4001) + b"bye")
        kind, payload, _ = ws.message()
        result["close_code"] = struct.unpack("!H", payload[:2])[0] if kind == "close" and len(payload) >= 2 else kind
        result["stream_ended"] = ws.stream_ended()
        return result
    finally:
        conn.close()


def scenario_large(args):
    conn = Connection(args)
    try:
        ws = WebSocket(conn, args.path)
        big = os.urandom(300 * 1024)
        ws.send(BINARY, big)
        kind, payload, _ = ws.message()
        return {"size": len(payload), "equal": kind == "binary" and payload == big}
    finally:
        conn.close()


def scenario_deflate(args):
    conn = Connection(args)
    try:
        ws = WebSocket(conn, args.path, extra=[("sec-websocket-extensions", "permessage-deflate")])
        extensions = ws.response["headers"].get("sec-websocket-extensions", "")
        text = ("compress me over h2 " * 200).encode()
        deflater = zlib.compressobj(6, zlib.DEFLATED, -15)
        compressed = deflater.compress(text) + deflater.flush(zlib.Z_SYNC_FLUSH)
        ws.send(TEXT, compressed[:-4], rsv1=True)  # RFC 7692 section 7.2.1: without the 4-byte tail
        kind, payload, was_compressed = ws.message()
        return {"status": ws.status, "extensions": extensions, "equal": kind == "text" and payload == text,
                "compressed_reply": was_compressed}
    finally:
        conn.close()


def scenario_concurrent(args):
    conn = Connection(args)
    try:
        sockets = [WebSocket(conn, args.path) for _ in range(4)]
        get = conn.request([(":method", "GET"), (":scheme", "https" if args.tls else "http"), (":path", "/plaintext"),
                            (":authority", "localhost")], end_stream=True)
        echoed = 0
        for round_number in range(20):
            for index, ws in enumerate(sockets):
                ws.send(TEXT, ("socket %d message %d" % (index, round_number)).encode())
            for index, ws in enumerate(sockets):
                if ws.message()[1].decode() == "socket %d message %d" % (index, round_number):
                    echoed += 1
        return {"sockets": len(sockets), "statuses": sorted({ws.status for ws in sockets}), "echoed": echoed,
                "get_status": conn.answer(get)["status"]}
    finally:
        conn.close()


def scenario_limited(args):
    conn = Connection(args)
    try:
        sockets = [WebSocket(conn, args.path) for _ in range(4)]
        first = sockets[0]
        first.send(CLOSE, struct.pack(">H", 1000))
        while first.message()[0] != "close":
            pass
        first.stream_ended()
        return {"statuses": [ws.status for ws in sockets], "after_close": WebSocket(conn, args.path).status}
    finally:
        conn.close()


def scenario_refusals(args):
    conn = Connection(args)
    try:
        scheme = "https" if args.tls else "http"
        plain_get = conn.request([(":method", "GET"), (":scheme", scheme), (":path", args.path),
                                  (":authority", "localhost")], end_stream=True)
        other_protocol = conn.request(connect_headers(args, args.path, protocol="foo"))
        not_websocket = conn.request(connect_headers(args, "/plaintext"))
        old_version = conn.request(connect_headers(args, args.path, version="8"))
        version = conn.answer(old_version)
        return {"plain_get": conn.answer(plain_get)["status"],
                "other_protocol": conn.answer(other_protocol)["status"],
                "not_websocket": conn.answer(not_websocket)["status"],
                "old_version": version["status"],
                "version_named": version["headers"].get("sec-websocket-version")}
    finally:
        conn.close()


def scenario_reset(args):
    conn = Connection(args)
    try:
        first = WebSocket(conn, args.path)
        first.send(TEXT, b"before the reset")
        first.message()
        conn.h2.reset_stream(first.stream_id, 0x8)  # CANCEL
        conn.flush()
        second = WebSocket(conn, args.path)
        second.send(TEXT, b"after the reset")
        result = {"after_reset": second.message()[1].decode()}
        metrics = conn.request([(":method", "GET"), (":scheme", "https" if args.tls else "http"), (":path", "/metrics"),
                                (":authority", "localhost")], end_stream=True)
        conn.answer(metrics)
        conn.pump(lambda: metrics in conn.ended, "the metrics")
        text = conn.data.get(metrics, bytearray()).decode()
        result["open"] = sum(int(float(line.split()[-1])) for line in text.splitlines()
                             if line.startswith("tiffany_websocket_open{"))
        return result
    finally:
        conn.close()


def close_code(ws):
    """Reads messages until the close frame: its code."""
    while True:
        kind, payload, _ = ws.message()
        if kind == "close":
            return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None


def scenario_handlers(args):
    conn = Connection(args)
    try:
        three = WebSocket(conn, "/three")
        words = [three.message()[1].decode() for _ in range(3)]
        result = {"three": words, "three_close": close_code(three)}
        three.send(CLOSE, struct.pack("!H", 1000))
        result["throw_close"] = close_code(WebSocket(conn, "/throw"))
        return result
    finally:
        conn.close()


def scenario_drain(args):
    if not args.signal_pid:
        raise ScenarioError("drain needs --signal-pid")
    conn = Connection(args)
    try:
        ws = WebSocket(conn, args.path)
        ws.send(TEXT, b"open")
        ws.message()
        os.kill(args.signal_pid, signal.SIGTERM)
        kind, payload, _ = ws.message()
        code = struct.unpack("!H", payload[:2])[0] if kind == "close" and len(payload) >= 2 else kind
        ws.send(CLOSE, payload[:2])
        return {"close_code": code, "stream_ended": ws.stream_ended(), "goaway": conn.goaway}
    finally:
        conn.close()


def scenario_drain_abrupt(args):
    if not args.signal_pid:
        raise ScenarioError("drain_abrupt needs --signal-pid")
    conn = Connection(args)
    sockets = [WebSocket(conn, args.path) for _ in range(2)]
    for ws in sockets:
        ws.send(TEXT, b"open")
        ws.message()
    os.kill(args.signal_pid, signal.SIGTERM)
    kind, payload, _ = sockets[0].message()
    conn.sock.close()  # Why no close frame, no GOAWAY: the server must end both sessions on its own
    return {"close_code": struct.unpack("!H", payload[:2])[0] if kind == "close" and len(payload) >= 2 else kind}


def cycle(conn, args, payload):
    """One WebSocket's life on CONN: True when the message came back as it should and the close ended it."""
    ws = WebSocket(conn, args.path)
    if ws.status != 200:
        raise ScenarioError("status %d for the WebSocket" % ws.status)
    if args.kind == "pubsub":
        ws.send(TEXT, b'{"subscribe": "cycles"}')
        if b"subscribed" not in ws.message()[1]:
            raise ScenarioError("no subscription")
        ws.send(TEXT, b'{"publish": "cycles", "data": "' + payload + b'"}')
        kind, got, _ = ws.message()
        answered = kind == "text" and got.startswith(b'{"channel":"cycles","data":"') and payload in got
    else:
        ws.send(BINARY, payload)
        kind, got, _ = ws.message()
        answered = kind == "binary" and got == payload
    ws.send(CLOSE, struct.pack("!H", 1000))
    while ws.message()[0] != "close":
        pass
    ended = ws.stream_ended()
    conn.data.pop(ws.stream_id, None)
    return answered and ended


def scenario_cycles(args):
    conn = Connection(args)
    small, big = b"s" * args.size, b"b" * (1024 * 1024)
    answered = 0
    try:
        for i in range(args.count):
            big_one = args.big_every > 0 and i % args.big_every == args.big_every - 1
            answered += cycle(conn, args, big if big_one else small)
        return {"cycles": args.count, "answered": answered}
    finally:
        conn.close()


SCENARIOS = {"settings": scenario_settings, "echo": scenario_echo, "large": scenario_large,
             "deflate": scenario_deflate, "concurrent": scenario_concurrent, "refusals": scenario_refusals,
             "reset": scenario_reset, "handlers": scenario_handlers, "drain": scenario_drain,
             "drain_abrupt": scenario_drain_abrupt, "cycles": scenario_cycles, "limited": scenario_limited}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tls", action="store_true")
    parser.add_argument("--path", default="/ws")
    parser.add_argument("--signal-pid", type=int, default=0)
    parser.add_argument("--count", type=int, default=100, help="cycles: how many WebSockets")
    parser.add_argument("--size", type=int, default=100, help="cycles: bytes in a small message")
    parser.add_argument("--big-every", type=int, default=0, help="cycles: every Nth message is 1 MiB (0: none)")
    parser.add_argument("--kind", choices=["echo", "pubsub"], default="echo", help="cycles: what the route does")
    parser.add_argument("--wait", type=float, default=10.0, help="seconds to wait for any one answer")
    parser.add_argument("scenarios", nargs="+", choices=sorted(SCENARIOS))
    args = parser.parse_args(argv)
    results = {}
    for name in args.scenarios:
        try:
            results[name] = SCENARIOS[name](args)
        except (ScenarioError, OSError, h2.exceptions.ProtocolError) as error:
            results[name] = {"error": "%s: %s" % (type(error).__name__, error)}
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
"""The pubsub handler's client side for tests/integration/pubsub: Python's websockets (python3-websockets).

One scenario per run; prints one JSON object with what it saw, and exits 1 with the reason on a failure.
  fanout  --ports A,B --subscribers N --messages M   subscribers spread over the ports; the last port publishes
  slow    --port A                                    a client that never reads is dropped; a reader gets all
  errors  --port A                                    bad commands get {"error": ...} and the connection lives
  flood   --port A --messages M                       publishes M messages of 64 KB, as fast as accepted
  restart --ports A,B --redis-port R --redis-dir D    Redis stops (publishing fails), starts again, and the
                                                      subscribers from before receive again
"""
import argparse
import asyncio
import base64
import json
import os
import socket
import subprocess
import sys
import time

import websockets


def fail(why):
    print(json.dumps({"ok": False, "why": why}))
    sys.exit(1)


async def close_all(connections):
    # Why: an open connection left to asyncio.run's shutdown waits out the library's close timeout (10 s).
    await asyncio.gather(*(ws.close() for ws in connections))


async def subscriber(port, channel):
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/pubsub", max_size=None)
    await ws.send(json.dumps({"subscribe": channel}))
    answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
    if answer != {"subscribed": channel}:
        fail(f"subscribing answered {answer}")
    return ws


async def expect(ws, wanted, timeout=10):
    got = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    if got != wanted:
        fail(f"expected {wanted}, got {got}")


async def fanout(args):
    ports = [int(p) for p in args.ports.split(",")]
    subs = [await subscriber(ports[i % len(ports)], "room") for i in range(args.subscribers)]
    publisher = await websockets.connect(f"ws://127.0.0.1:{ports[-1]}/pubsub")
    for n in range(args.messages):
        await publisher.send(json.dumps({"publish": "room", "data": {"n": n, "text": "h\u00e9llo"}}))
    for ws in subs:
        for n in range(args.messages):
            await expect(ws, {"channel": "room", "data": {"n": n, "text": "h\u00e9llo"}})
    # Unsubscribed: nothing more arrives for it, while the others still get theirs.
    await subs[0].send(json.dumps({"unsubscribe": "room"}))
    await expect(subs[0], {"unsubscribed": "room"})
    await publisher.send(json.dumps({"publish": "room", "data": "after"}))
    for ws in subs[1:]:
        await expect(ws, {"channel": "room", "data": "after"})
    try:
        extra = await asyncio.wait_for(subs[0].recv(), 0.5)
        fail(f"an unsubscribed client still got {extra}")
    except asyncio.TimeoutError:
        pass
    await close_all(subs + [publisher])
    print(json.dumps({"ok": True, "subscribers": len(subs), "messages": args.messages}))


def raw_subscriber(port, channel):
    """A WebSocket client on a plain socket, so that it can stop reading."""
    sock = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /pubsub HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    if not head.startswith(b"HTTP/1.1 101"):
        fail(f"the raw subscriber's handshake got {head[:40]!r}")
    payload = json.dumps({"subscribe": channel}).encode()
    mask = os.urandom(4)
    sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
    return sock


def read_frames(sock, seconds):
    """Reads for up to `seconds` or until the connection ends: (data messages, close code or None, ended)."""
    sock.settimeout(seconds)
    buffer = b""
    messages, code, ended = 0, None, False
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            chunk = sock.recv(1 << 16)
        except socket.timeout:
            break
        except ConnectionResetError:
            ended = True
            break
        if not chunk:
            ended = True
            break
        buffer += chunk
        while len(buffer) >= 2:
            length, at = buffer[1] & 0x7F, 2
            if length == 126:
                if len(buffer) < 4:
                    break
                length, at = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                if len(buffer) < 10:
                    break
                length, at = int.from_bytes(buffer[2:10], "big"), 10
            if len(buffer) < at + length:
                break
            opcode, payload = buffer[0] & 0x0F, buffer[at:at + length]
            buffer = buffer[at + length:]
            if opcode == 0x8:
                code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            elif opcode in (0x1, 0x2):
                messages += 1
    return messages, code, ended


async def slow(args):
    slow_sock = raw_subscriber(args.port, "flood")
    fast = await subscriber(args.port, "flood")
    publisher = await websockets.connect(f"ws://127.0.0.1:{args.port}/pubsub")
    big = "x" * 60000
    published = 400
    received = 0
    for n in range(published):
        await publisher.send(json.dumps({"publish": "flood", "data": big}))
        if n % 10 == 9:  # the fast one keeps up: it reads each batch before the next
            for _ in range(10):
                json.loads(await asyncio.wait_for(fast.recv(), 10))
                received += 1
    # The slow one never read; now it does: it must have been cut off well before the end.
    messages, code, ended = read_frames(slow_sock, 15)
    await close_all([fast, publisher])
    print(json.dumps({"ok": True, "fast_received": received, "published": published, "slow_received": messages,
                      "slow_close_code": code, "slow_ended": ended}))


async def errors(args):
    ws = await websockets.connect(f"ws://127.0.0.1:{args.port}/pubsub")
    answers = {}
    for name, message in [("not_json", "hello"), ("not_object", "[1]"), ("empty_channel", '{"subscribe": ""}'),
                          ("number_channel", '{"publish": 5}'), ("unknown_verb", '{"join": "room"}'),
                          ("binary", b'{"subscribe": "room"}')]:
        await ws.send(message)
        answers[name] = json.loads(await asyncio.wait_for(ws.recv(), 5))
    await ws.send(json.dumps({"subscribe": "room"}))
    answers["still_serving"] = json.loads(await asyncio.wait_for(ws.recv(), 5))
    await close_all([ws])
    print(json.dumps({"ok": True, "answers": answers}))


async def flood(args):
    ws = await websockets.connect(f"ws://127.0.0.1:{args.port}/pubsub")
    big = "x" * 65536
    for _ in range(args.messages):
        await ws.send(json.dumps({"publish": "flood", "data": big}))
    await close_all([ws])
    print(json.dumps({"ok": True, "published": args.messages}))


def redis(port, *words):
    return subprocess.run(["redis-cli", "-p", str(port), *words], capture_output=True, text=True, timeout=10)


async def restart(args):
    ports = [int(p) for p in args.ports.split(",")]
    subs = [await subscriber(ports[i % len(ports)], "news") for i in range(4)]
    publisher = await websockets.connect(f"ws://127.0.0.1:{ports[-1]}/pubsub")
    await publisher.send(json.dumps({"publish": "news", "data": "before"}))
    for ws in subs:
        await expect(ws, {"channel": "news", "data": "before"})
    redis(args.redis_port, "shutdown", "nosave")
    await asyncio.sleep(0.5)
    await publisher.send(json.dumps({"publish": "news", "data": "during"}))
    during = json.loads(await asyncio.wait_for(publisher.recv(), 5))
    if "error" not in during:
        fail(f"publishing without Redis answered {during}")
    subprocess.run(["redis-server", "--port", str(args.redis_port), "--bind", "127.0.0.1", "--save", "",
                    "--appendonly", "no", "--daemonize", "yes", "--dir", args.redis_dir,
                    "--pidfile", os.path.join(args.redis_dir, "redis.pid")], check=True, timeout=10)
    started = time.time()
    # Until every worker has reconnected and subscribed again, a publish may fail or miss a subscriber.
    while time.time() - started < 15:
        await publisher.send(json.dumps({"publish": "news", "data": "after"}))
        got_all = True
        for ws in subs:
            try:
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 0.3))
                    if message == {"channel": "news", "data": "after"}:
                        break
            except asyncio.TimeoutError:
                got_all = False
        if got_all:
            break
        try:  # drop the publisher's error answers of the tries that failed
            while True:
                await asyncio.wait_for(publisher.recv(), 0.05)
        except asyncio.TimeoutError:
            pass
    else:
        fail("the subscribers from before the restart received nothing published after it within 15 s")
    await close_all(subs + [publisher])
    print(json.dumps({"ok": True, "during": during, "recovered_after_s": round(time.time() - started, 2)}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=["fanout", "slow", "errors", "flood", "restart"])
    parser.add_argument("--port", type=int)
    parser.add_argument("--ports")
    parser.add_argument("--subscribers", type=int, default=8)
    parser.add_argument("--messages", type=int, default=5)
    parser.add_argument("--redis-port", type=int)
    parser.add_argument("--redis-dir")
    args = parser.parse_args()
    asyncio.run({"fanout": fanout, "slow": slow, "errors": errors, "flood": flood, "restart": restart}[args.scenario](args))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The Redis link's tests' client side (tests/integration/pubsub/redis_link_test.cpp): python3-websockets.

One scenario per run; prints one JSON object with what it saw, and exits 1 with the reason on a failure.
  stall   --port A --redis-pid P   Redis stopped (SIGSTOP) while idle is noticed (the link is down in
                                   /metrics), publishes are refused and queue nothing; after SIGCONT a
                                   subscriber from before receives again
  burst   --port A --redis-pid P   Redis stopped, then 600 publishes of 64 KB at once: some are refused,
                                   and the peak queued for Redis stays under its bound (/metrics)
  refused --port A                 publishes until one is answered with the error (Redis unusable)
"""
import argparse
import asyncio
import json
import os
import re
import signal
import sys
import time
import urllib.request

import websockets

PUBLISH_ERROR = {"error": "Redis is unreachable: nothing was published; try again"}


def fail(why):
    print(json.dumps({"ok": False, "why": why}))
    sys.exit(1)


def metric(port, name):
    """The sum of `name`'s samples in /metrics (whatever their labels), or None if it has none."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    values = [float(m.group(1)) for m in re.finditer(r"^" + re.escape(name) + r"(?:\{[^}]*\})? (\S+)$", text, re.M)]
    return sum(values) if values else None


async def connect(port):
    return await websockets.connect(f"ws://127.0.0.1:{port}/pubsub", max_size=None)


async def subscriber(port, channel):
    ws = await connect(port)
    await ws.send(json.dumps({"subscribe": channel}))
    answer = json.loads(await asyncio.wait_for(ws.recv(), 15))
    if answer != {"subscribed": channel}:
        fail(f"subscribing answered {answer}")
    return ws


async def answers_within(ws, seconds, quiet=None, count=None):
    """Every message `ws` receives within `seconds` (or until none came for `quiet` seconds, or
    `count` came)."""
    got = []
    deadline = time.time() + seconds
    while time.time() < deadline and (count is None or len(got) < count):
        wait = max(0.01, deadline - time.time())
        try:
            got.append(json.loads(await asyncio.wait_for(ws.recv(), min(wait, quiet or wait))))
        except asyncio.TimeoutError:
            break
    return got


async def until_heard(publisher, listener, data, seconds):
    """Publishes `data` every 300 ms until `listener` receives it; the seconds it took, or None."""
    started = time.time()
    while time.time() - started < seconds:
        await publisher.send(json.dumps({"publish": "room", "data": data}))
        for message in await answers_within(listener, 0.3):
            if message == {"channel": "room", "data": data}:
                return round(time.time() - started, 2)
    return None


async def stall(args):
    listener = await subscriber(args.port, "room")
    publisher = await connect(args.port)
    if await until_heard(publisher, listener, "before", 10) is None:
        fail("nothing published reached the subscriber before Redis was stopped")
    os.kill(args.redis_pid, signal.SIGSTOP)
    stopped = time.time()
    # Nothing is published meanwhile: only the link's own PINGs can tell Redis has stopped.
    connected = metric(args.port, "tiffany_pubsub_redis_connected")
    while connected != 0:
        if time.time() - stopped > 30:
            os.kill(args.redis_pid, signal.SIGCONT)
            # Why the value and the losses: "no such metric" (None) and "still 1" are different bugs.
            losses = metric(args.port, "tiffany_pubsub_redis_losses_total")
            fail("the link still counts as connected 30 s after Redis was stopped (tiffany_pubsub_redis_connected: "
                 "%s, losses: %s)" % (connected, losses))
        await asyncio.sleep(0.2)
        connected = metric(args.port, "tiffany_pubsub_redis_connected")
    noticed_after = round(time.time() - stopped, 2)
    # Now every publish is refused at once, and nothing queues for Redis.
    big = "x" * 65536
    for _ in range(100):
        await publisher.send(json.dumps({"publish": "room", "data": big}))
    # Why until all 100 came (a minute at most) rather than until 2 s pass without one: under TSan
    # on a loaded machine the server can take longer than that over one 64 KiB publish.
    answers = await answers_within(publisher, 60, count=100)
    refused = sum(1 for a in answers if a == PUBLISH_ERROR)
    queued = metric(args.port, "tiffany_pubsub_redis_queued_bytes")
    refused_total = metric(args.port, "tiffany_pubsub_redis_publishes_refused_total")
    # Stopped a while longer: the tries to reconnect meanwhile find no answer either.
    await asyncio.sleep(max(0, 8 - (time.time() - stopped - noticed_after)))
    os.kill(args.redis_pid, signal.SIGCONT)
    resumed = time.time()
    recovered_after = await until_heard(publisher, listener, "after", 30)
    if recovered_after is None:
        fail("the subscriber from before the stop heard nothing within 30 s of SIGCONT")
    await asyncio.gather(listener.close(), publisher.close())
    print(json.dumps({"ok": True, "noticed_after_s": noticed_after, "refused": refused, "queued_bytes": queued,
                      "refused_total": refused_total, "recovered_after_s": round(time.time() - resumed, 2)}))


async def burst(args):
    publisher = await connect(args.port)
    await publisher.send(json.dumps({"publish": "room", "data": "warm"}))  # the link starts with the first use
    await asyncio.sleep(1)
    os.kill(args.redis_pid, signal.SIGSTOP)
    big = "x" * 65536
    for _ in range(args.messages):
        await publisher.send(json.dumps({"publish": "room", "data": big}))
    # Why the first answer is awaited for up to a minute: the server takes the burst at its own
    # pace (under TSan on a loaded machine, hundreds of ms a message), and refusals begin only once
    # 8 MiB wait for Redis; the rest follow as it goes on, until none came for 3 s.
    try:
        first = json.loads(await asyncio.wait_for(publisher.recv(), 60))
    except asyncio.TimeoutError:
        fail("no publish was answered within 60 s")
    answers = [first] + await answers_within(publisher, 120, quiet=3)
    peak = metric(args.port, "tiffany_pubsub_redis_queued_bytes_peak")
    os.kill(args.redis_pid, signal.SIGCONT)
    await publisher.close()
    print(json.dumps({"ok": True, "published": args.messages,
                      "refused": sum(1 for a in answers if a == PUBLISH_ERROR), "peak_queued_bytes": peak}))


async def refused(args):
    publisher = await connect(args.port)
    started = time.time()
    while time.time() - started < 20:
        await publisher.send(json.dumps({"publish": "room", "data": "hello"}))
        answers = await answers_within(publisher, 0.5)
        if PUBLISH_ERROR in answers:
            await publisher.close()
            print(json.dumps({"ok": True, "refused_after_s": round(time.time() - started, 2)}))
            return
    fail("no publish was refused within 20 s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=["stall", "burst", "refused"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis-pid", type=int)
    parser.add_argument("--messages", type=int, default=600)
    args = parser.parse_args()
    asyncio.run({"stall": stall, "burst": burst, "refused": refused}[args.scenario](args))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The chat example plugin's clients for tests/integration/pubsub: Python's websockets (python3-websockets),
as a browser would talk to it.

One scenario per run; prints one JSON object with what it saw, and exits 1 with the reason on a failure.
  chat       --ports A,B --clients N   N clients spread over the ports chat in one room; everyone hears
                                       everyone, in order, and a client in another room hears none of it
  refusals   --port A                  a bad name is answered 400; a binary message closes with 1003
  redis_down --port A --redis-port R   with Redis stopped, what a client says is refused, and a new
                                       client is closed with 1013 (try again later)
  refused    --port A                  a client whose room Redis refuses is closed with 1013
  restart    --ports A,B --redis-port R --redis-dir D
                                       Redis restarts under two chatting clients (one per instance);
                                       once it is back, each hears the other again
"""
import argparse
import asyncio
import json
import os
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


async def next_event(ws, timeout=10):
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def enter(port, room, name):
    """Connects and waits for its own arrival: from then on it hears whatever is said in the room."""
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/chat?room={room}&name={name}")
    while True:
        event = await next_event(ws)
        if event == {"room": room, "joined": name}:
            return ws


async def chat(args):
    ports = [int(p) for p in args.ports.split(",")]
    names = [f"c{i}" for i in range(args.clients)]
    clients = [await enter(ports[i % len(ports)], "lobby", name) for i, name in enumerate(names)]
    elsewhere = await enter(ports[0], "attic", "loner")
    lines = 5
    for n in range(lines):
        for ws, name in zip(clients, names):
            await ws.send(f"line {n} from {name} \u00e9")
    heard = {}
    for ws, listener in zip(clients, names):
        expected = {name: 0 for name in names}
        while any(count < lines for count in expected.values()):
            event = await next_event(ws)
            if "joined" in event:  # those who came in after this one
                continue
            sender = event.get("from")
            if sender not in expected or event != {"room": "lobby", "from": sender,
                                                   "text": f"line {expected[sender]} from {sender} \u00e9"}:
                fail(f"{listener} heard {event}, expecting line {expected.get(sender)} of {sender}")
            expected[sender] += 1
        heard[listener] = sum(expected.values())
    try:
        stray = await asyncio.wait_for(elsewhere.recv(), 0.5)
        fail(f"a client in another room heard {stray}")
    except asyncio.TimeoutError:
        pass
    await clients[0].close()
    for ws in clients[1:]:
        event = await next_event(ws)
        if event != {"room": "lobby", "left": names[0]}:
            fail(f"after c0 left, heard {event}")
    await close_all(clients[1:] + [elsewhere])
    print(json.dumps({"ok": True, "clients": len(clients), "heard": sum(heard.values())}))


async def refusals(args):
    answers = {}
    try:
        await websockets.connect(f"ws://127.0.0.1:{args.port}/chat?room=lobby&name=no%20spaces")
        fail("a bad name was let in")
    except websockets.exceptions.InvalidStatusCode as refused:
        answers["bad_name_status"] = refused.status_code
    ws = await enter(args.port, "lobby", "bin")
    await ws.send(b"\x00\x01")
    try:
        while True:
            await next_event(ws, 5)
    except websockets.exceptions.ConnectionClosed as closed:
        answers["binary_close_code"] = closed.code
    print(json.dumps({"ok": True, **answers}))


async def redis_down(args):
    ws = await enter(args.port, "lobby", "early")
    subprocess.run(["redis-cli", "-p", str(args.redis_port), "shutdown", "nosave"], capture_output=True, timeout=10)
    await asyncio.sleep(0.5)
    await ws.send("anyone?")
    answer = await next_event(ws)
    late = await websockets.connect(f"ws://127.0.0.1:{args.port}/chat?room=lobby&name=late")
    try:
        while True:
            await next_event(late, 10)
    except websockets.exceptions.ConnectionClosed as closed:
        late_code = closed.code
    await close_all([ws])
    print(json.dumps({"ok": True, "said": answer, "late_close_code": late_code}))


async def refused(args):
    ws = await websockets.connect(f"ws://127.0.0.1:{args.port}/chat?room=lobby&name=ann")
    try:
        while True:
            await next_event(ws, 10)
    except websockets.exceptions.ConnectionClosed as closed:
        print(json.dumps({"ok": True, "close_code": closed.code}))


async def restart(args):
    ports = [int(p) for p in args.ports.split(",")]
    ann = await enter(ports[0], "lobby", "ann")
    bob = await enter(ports[1], "lobby", "bob")
    await next_event(ann)  # bob joined
    subprocess.run(["redis-cli", "-p", str(args.redis_port), "shutdown", "nosave"], capture_output=True, timeout=10)
    await asyncio.sleep(0.5)
    await ann.send("lost?")
    during = await next_event(ann)
    subprocess.run(["redis-server", "--port", str(args.redis_port), "--bind", "127.0.0.1", "--save", "",
                    "--appendonly", "no", "--daemonize", "yes", "--dir", args.redis_dir,
                    "--pidfile", os.path.join(args.redis_dir, "redis.pid")], check=True, timeout=10)
    started = time.time()
    heard = set()
    # Until both workers holding them have reconnected and subscribed again, a line may be refused or missed.
    while time.time() - started < 15 and heard != {"ann", "bob"}:
        for ws, name in ((ann, "ann"), (bob, "bob")):
            if name not in heard:
                await ws.send(f"back from {name}")
        for ws, other in ((ann, "bob"), (bob, "ann")):
            try:
                while True:
                    event = await next_event(ws, 0.3)
                    if event == {"room": "lobby", "from": other, "text": f"back from {other}"}:
                        heard.add(other)
            except asyncio.TimeoutError:
                pass
    if heard != {"ann", "bob"}:
        fail(f"after Redis came back within 15 s only {sorted(heard)} were heard")
    await close_all([ann, bob])
    print(json.dumps({"ok": True, "during": during, "recovered_after_s": round(time.time() - started, 2)}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=["chat", "refusals", "redis_down", "refused", "restart"])
    parser.add_argument("--port", type=int)
    parser.add_argument("--ports")
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--redis-port", type=int)
    parser.add_argument("--redis-dir")
    args = parser.parse_args()
    asyncio.run({"chat": chat, "refusals": refusals, "redis_down": redis_down, "refused": refused,
                 "restart": restart}[args.scenario](args))


if __name__ == "__main__":
    main()

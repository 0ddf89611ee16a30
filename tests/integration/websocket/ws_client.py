#!/usr/bin/python3
"""WebSocket test driver for the integration tests: runs scenarios with Python's `websockets` (an
independent RFC 6455 client) against a server and prints ONE JSON object, one key per scenario.

usage: ws_client.py --port N [--tls] [--path /ws] [--protocol-path /chat] SCENARIO...

Scenarios (each on its own connection to --path, an echo route, unless said otherwise):
  text        a text message echoed:                    {"sent": s, "received": r, "text": bool}
  binary      a binary message (all 256 byte values):   {"equal": bool, "text": bool}
  fragmented  a text message sent in 3 fragments:       {"received": r}
  large       a 200 KB binary message:                  {"size": n, "equal": bool}
  unicode     non-ASCII text (4-byte code points too):  {"equal": bool, "received": r}
  ping        a ping, its pong:                         {"pong_ms": ms}
  close       the client closes with 4001 "bye":        {"code": c, "reason": r}
  subprotocol offers ["superchat", "chat"] to --protocol-path: {"subprotocol": s}
  no_compression  offers permessage-deflate (the client's default) to --no-deflate-path (a route
              with compression off), and connects to --path offering nothing (compression=None);
              a message echoes on both: {"offered": [...], "plain": [...], "echo": bool}
  compression  offers permessage-deflate to --path (compression on, the default): the extensions
              agreed, and echoes of a compressible text, a 200 KB one, binary and a tiny one:
              {"extensions": [...], "equal": bool}

Exit status: 0 when every scenario ran (whatever the server answered: a scenario that failed says
{"error": "..."}), 1 when the driver could not run at all, 2 for bad arguments.
"""

import argparse
import asyncio
import json
import ssl
import sys
import time

import websockets


class Driver:
    def __init__(self, args):
        self.args = args
        scheme = "wss" if args.tls else "ws"
        self.base = "%s://%s:%d" % (scheme, args.host, args.port)
        self.ssl = None
        if args.tls:
            # Why unverified: the tests' certificate is self-signed.
            self.ssl = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            self.ssl.check_hostname = False
            self.ssl.verify_mode = ssl.CERT_NONE

    def connect(self, path=None, **kwargs):
        return websockets.connect(self.base + (path or self.args.path), ssl=self.ssl, open_timeout=self.args.wait,
                                  close_timeout=self.args.wait, max_size=2**24, ping_interval=None, **kwargs)

    async def recv(self, ws):
        return await asyncio.wait_for(ws.recv(), self.args.wait)

    async def text(self):
        async with self.connect() as ws:
            await ws.send("hello, tiffany")
            got = await self.recv(ws)
            return {"sent": "hello, tiffany", "received": got if isinstance(got, str) else repr(got),
                    "text": isinstance(got, str)}

    async def binary(self):
        payload = bytes(range(256)) * 4
        async with self.connect() as ws:
            await ws.send(payload)
            got = await self.recv(ws)
            return {"equal": got == payload, "text": isinstance(got, str)}

    async def fragmented(self):
        async with self.connect() as ws:
            # Why an iterable: websockets sends each item as one frame of a single message.
            await ws.send(["frag", "men", "ted ✓"])
            got = await self.recv(ws)
            return {"received": got}

    async def large(self):
        payload = bytes((i * 7 + 3) % 251 for i in range(200 * 1024))
        async with self.connect() as ws:
            await ws.send(payload)
            got = await self.recv(ws)
            return {"size": len(got), "equal": got == payload}

    async def unicode(self):
        message = "héllo wörld — 日本語 🎉𝄞"
        async with self.connect() as ws:
            await ws.send(message)
            got = await self.recv(ws)
            return {"equal": got == message, "received": got}

    async def ping(self):
        async with self.connect() as ws:
            start = time.monotonic()
            waiter = await ws.ping(b"are you there")
            await asyncio.wait_for(waiter, self.args.wait)
            return {"pong_ms": round((time.monotonic() - start) * 1000, 1)}

    async def close(self):
        ws = await self.connect()
        await ws.send("before close")
        echoed = await self.recv(ws)
        await ws.close(4001, "bye")
        # close_code and close_reason are what the server's close frame said.
        return {"code": ws.close_code, "reason": ws.close_reason, "echoed": echoed}

    async def subprotocol(self):
        async with self.connect(self.args.protocol_path, subprotocols=["superchat", "chat"]) as ws:
            await ws.send("with a subprotocol")
            got = await self.recv(ws)
            return {"subprotocol": ws.subprotocol, "echoed": got}

    async def no_compression(self):
        # Why both ways: an offer the route declines, and no offer at all.
        async with self.connect(self.args.no_deflate_path) as ws:
            offered = [type(extension).__name__ for extension in ws.extensions]
            await ws.send("x" * 1000)
            first = await self.recv(ws)
        async with self.connect(compression=None) as ws:
            plain = [type(extension).__name__ for extension in ws.extensions]
            await ws.send("y" * 1000)
            second = await self.recv(ws)
        return {"offered": offered, "plain": plain, "echo": first == "x" * 1000 and second == "y" * 1000}

    async def compression(self):
        messages = ["compress me " * 50, "é" + "long and repetitive " * 10000, bytes(range(256)) * 64, "tiny"]
        async with self.connect() as ws:
            extensions = [type(extension).__name__ for extension in ws.extensions]
            echoed = []
            for message in messages:
                await ws.send(message)
                echoed.append(await self.recv(ws))
        return {"extensions": extensions, "equal": echoed == messages}


SCENARIOS = ["text", "binary", "fragmented", "large", "unicode", "ping", "close", "subprotocol", "no_compression",
             "compression"]


async def run(args):
    driver = Driver(args)
    output = {}
    for scenario in args.scenarios:
        try:
            output[scenario] = await asyncio.wait_for(getattr(driver, scenario)(), args.wait * 3)
        except Exception as error:  # the server's failure is the scenario's answer, not the driver's
            output[scenario] = {"error": "%s: %s" % (type(error).__name__, error)}
    return output


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tls", action="store_true", help="wss, certificate not verified")
    parser.add_argument("--path", default="/ws", help="an echo route (default /ws)")
    parser.add_argument("--protocol-path", default="/chat", help="an echo route with subprotocols chat, superchat")
    parser.add_argument("--no-deflate-path", default="/nodeflate", help="an echo route with compression off")
    parser.add_argument("--wait", type=float, default=5.0, help="bound of every wait, seconds (default 5)")
    parser.add_argument("scenarios", nargs="+", choices=SCENARIOS)
    args = parser.parse_args(argv)
    try:
        output = asyncio.run(run(args))
    except Exception as error:
        print(json.dumps({"driver_error": str(error)}))
        return 1
    print(json.dumps(output, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
# Writes tests/fuzz/websocket_seeds/: inputs for websocket_frame_fuzzer, one per kind of stream.
# Run from anywhere: /usr/bin/python3 tests/fuzz/make_websocket_seeds.py
# An input is a reader byte (even: a server's reader, masks required; odd:
# masks optional and a size limit of byte >> 1), cut bytes (the first says how
# many: 1 + byte % 4), then the WebSocket byte stream.
import pathlib
import struct

FIN, CONT, TEXT, BINARY, CLOSE, PING, PONG = 0x80, 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
MASK = bytes([0x37, 0xFA, 0x21, 0x3D])


def frame(first, payload, masked=True, length_bytes=None):
    """One frame; length_bytes 2 or 8 forces that length form."""
    mask_bit = 0x80 if masked else 0
    n = len(payload)
    if length_bytes is None:
        length_bytes = 0 if n <= 125 else 2 if n <= 0xFFFF else 8
    if length_bytes == 0:
        head = bytes([first, mask_bit | n])
    elif length_bytes == 2:
        head = bytes([first, mask_bit | 126]) + struct.pack(">H", n)
    else:
        head = bytes([first, mask_bit | 127]) + struct.pack(">Q", n)
    if not masked:
        return head + payload
    return head + MASK + bytes(b ^ MASK[i % 4] for i, b in enumerate(payload))


def server(limit):
    """The reader byte for masks optional and a limit of `limit` bytes (0-127)."""
    return bytes([(limit << 1) | 1])


SERVER_READER = b"\x00"
# Cut bytes: 4 of them (0x03 % 4 == 3: three more), pieces of 4, 2, 1 and 6 bytes.
SMALL_CUTS = bytes([0x03, 0x01, 0x00, 0x05])
# One cut byte (0xc4 % 4 == 0): pieces of 1 + (0xc4 & 0x3f) * 64 = 257 bytes.
BIG_CUTS = bytes([0xC4])

seeds = {
    "masked_text": SERVER_READER + SMALL_CUTS + frame(FIN | TEXT, b"Hello"),
    "masked_binary": SERVER_READER + SMALL_CUTS + frame(FIN | BINARY, bytes(range(256))[:40]),
    "fragmented_text_ping_between": SERVER_READER + SMALL_CUTS
    + frame(TEXT, b"Hel") + frame(FIN | PING, b"are you there") + frame(CONT, b"lo, ") + frame(FIN | CONT, b"world"),
    "close_code_reason": SERVER_READER + SMALL_CUTS
    + frame(FIN | PONG, b"") + frame(FIN | CLOSE, struct.pack(">H", 1000) + "bye \u00e9".encode()),
    "length_16bit": SERVER_READER + BIG_CUTS + frame(FIN | BINARY, bytes(300)) + frame(FIN | TEXT, b"x" * 126),
    # A 64-bit length takes more than 65535 bytes, above the fuzzer's max_len: the stream stops inside it.
    "length_64bit_cut_off": SERVER_READER + BIG_CUTS + frame(FIN | BINARY, bytes(70000))[:1200],
    "bad_utf8_across_fragments": SERVER_READER + SMALL_CUTS
    + frame(TEXT, "caf".encode() + b"\xc3") + frame(CONT, b"\xa9 \xf0\x9f") + frame(FIN | CONT, b"\x98("),
    "good_utf8_across_fragments": SERVER_READER + SMALL_CUTS
    + frame(TEXT, "caf".encode() + b"\xc3") + frame(CONT, b"\xa9 \xf0\x9f") + frame(FIN | CONT, b"\x98\x80"),
    # Masks optional, 64 bytes at most: a server's frames, then a message that grows past the limit.
    "unmasked_limit_64": server(64) + SMALL_CUTS
    + frame(FIN | TEXT, b"from the server", masked=False) + frame(BINARY, b"a" * 40, masked=False)
    + frame(FIN | CONT, b"b" * 30, masked=False),
    "non_minimal_length": SERVER_READER + SMALL_CUTS + frame(FIN | BINARY, b"short", length_bytes=2),
}

out = pathlib.Path(__file__).resolve().parent / "websocket_seeds"
out.mkdir(exist_ok=True)
for name, data in seeds.items():
    (out / name).write_bytes(data)
print(f"wrote {len(seeds)} seeds to {out}")

"""A protocol fuzzer: answers every request with seeded mutations of a valid reply.

Each ``act`` gets a few chatter lines first (mutated replies without this request's id, which
the arena must read and drop), then its reply, mutated: mostly in ways the protocol allows
(extra keys however deep, duplicate keys, escaped keys, odd debug notes, whitespace, a repeated
reply), now and then in ways it forbids (truncation, byte flips, invalid UTF-8, NUL bytes, deep
nesting, wrong types, numbers beyond 64 bits, NaN, lone surrogates, a line over 1 MiB, a line
never ended, a closed output, an exit). The random stream of a request is seeded from the match
id, the seat and the step, so it is the same whatever happened before.

Every line written is one mutation; the process's running count goes to stderr as
``fuzz-count N`` (before the lines it counts) for the test to add up.

With an argument, the answer to ``hello`` is a mutation seeded by that argument (valid or not);
without, it is a fixed valid one with odd fields. Either way acts are then fuzzed as above.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

MIB = 1 << 20
count = 0


def deep(levels: int, inner: str = "0") -> str:
    return "[" * levels + inner + "]" * levels


STRINGS = [
    '""',
    '"x"',
    '"\\u0000"',
    '"\\u001b[2J"',
    '"\\ud83d\\ude00"',
    '"é"',
    '"\\\\\\""',
    '"\\t\\n\\r"',
    '"\\ufffd"',
    '"<script>"',
]
NUMBERS = [
    "0",
    "-1",
    "1.5",
    "-0.0",
    "1e308",
    "1e-320",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "123456789012345678901234567890",
]
HARD_VALUES = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    '"\\ud800"',
    '"\\udfff\\ud800"',
    deep(1030),
    "[1,]",
    "{'a':1}",
    "tru",
]


def value(rng: random.Random, depth: int = 0) -> str:
    """Random JSON text: scalars, shallow containers, now and then a very deep one."""
    r = rng.random()
    if r < 0.05:
        return deep(rng.randint(1, 1000))
    if depth >= 3 or r < 0.55:
        pick = rng.random()
        if pick < 0.4:
            return rng.choice(STRINGS)
        if pick < 0.8:
            return rng.choice(NUMBERS)
        return rng.choice(["true", "false", "null"])
    if r < 0.8:
        return "[" + ",".join(value(rng, depth + 1) for _ in range(rng.randint(0, 4))) + "]"
    keys = [rng.choice(['"a"', '"b"', '"id"', '"index"', '""', '"\\u0000"']) for _ in range(3)]
    return "{" + ",".join(f"{k}:{value(rng, depth + 1)}" for k in keys[: rng.randint(0, 3)]) + "}"


def join(pairs: list[tuple[str, str]], rng: random.Random) -> str:
    space = rng.choice(["", "", "", " ", "\t", " \r"])
    body = ("," + space).join(f"{k}{space}:{space}{v}" for k, v in pairs)
    return "{" + space + body + space + "}"


def soft(rng: random.Random, rid: int, legal: list[object], chatter: bool) -> list[tuple[str, str]]:
    """The pairs of a reply that is still valid: mutations the protocol allows."""
    i = rng.randrange(len(legal))
    pairs = [('"id"', str(rid))]
    if rng.random() < 0.3:
        pairs.append(('"action"', json.dumps(legal[i])))
    else:
        pairs.append(('"index"', str(i)))
    for _ in range(3):
        r = rng.random()
        if r < 0.25:
            pairs.insert(rng.randrange(len(pairs) + 1), (f'"extra{rng.randrange(9)}"', value(rng)))
        elif r < 0.35:  # a duplicate key before the real one: the last counts
            pairs.insert(0, (pairs[-1][0], value(rng)))
        elif r < 0.45:
            note = "".join(
                rng.choice(["a", "\\u0000", "\\n", "é", "\\ud83d\\ude00", "\\\\"])
                for _ in range(rng.randint(0, 3000))
            )
            pairs.append(('"debug"', f'"{note}"'))
        elif r < 0.5:
            pairs.append(('"debug"', value(rng, 2)))
        elif r < 0.55:
            rng.shuffle(pairs)
        elif r < 0.6 and not chatter:  # escaped keys are still the same keys
            pairs = [('"\\u0069d"' if k == '"id"' else k, v) for k, v in pairs]
    return pairs


def hard(rng: random.Random, line: bytes, rid: int) -> bytes | str:
    """A reply the protocol forbids (or an action of the process: exit, close, stall)."""
    r = rng.random()
    if r < 0.12:
        return line[: rng.randrange(max(1, len(line)))] + b"\n"
    if r < 0.22:
        data = bytearray(line)
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data).replace(b"\n", b" ") + b"\n"
    if r < 0.3:
        at = rng.randrange(len(line))
        bad = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80", b"\x00"])
        return line[:at] + bad + line[at:] + b"\n"
    if r < 0.62:
        key = rng.choice(['"index"', '"action"', '"debug"', '"id"'])
        bad_value = rng.choice(
            [
                *HARD_VALUES,
                deep(rng.randint(33, 1023)),
                '"0"',
                "0.0",
                "true",
                "null",
                "[0]",
                '{"a":0}',
                "1e30",
                "-123456789012345678901234567890",
                "18446744073709551616",
                str(rid + rng.randint(1, 1000)),
                '"zzz"',
                "1000000",
            ]
        )
        text = line.decode("utf-8", "replace")
        return (text[:-1] + f",{key}:{bad_value}}}").encode("utf-8", "surrogatepass") + b"\n"
    if r < 0.7:
        return (
            rng.choice([b"[1,2]", b"3", b'"x"', b"null", b"", b" ", b"{}", b'{"id":null}']) + b"\n"
        )
    if r < 0.76:
        i = rid if rng.random() < 0.5 else rid + 1
        return f'{{"id":{i},"index":0,"action":0}}\n'.encode()
    if r < 0.8:
        return b'{"id":%d,"index":0,"debug":"' % rid + b"x" * (MIB + 10) + b'"}\n'
    if r < 0.9:
        return f'{{"id":{rid + rng.randint(1, 50)},"index":0}}\n'.encode()
    if r < 0.93:
        return "partial"
    if r < 0.965:
        return "close"
    return "exit"


def write(lines: list[bytes]) -> None:
    global count
    count += len(lines)
    sys.stderr.write(f"fuzz-count {count}\n")
    sys.stderr.flush()
    for data in lines:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def answer(rng: random.Random, rid: int, legal: list[object]) -> None:
    lines = []
    for _ in range(rng.choice([0, 1, 2, 3, 4, 5])):
        pairs = soft(rng, rid, legal, chatter=True)
        if rid > 1 and rng.random() < 0.5:
            pairs = [(k, str(rng.randint(1, rid - 1)) if k == '"id"' else v) for k, v in pairs]
        else:
            pairs = [(k, v) for k, v in pairs if k != '"id"']
        lines.append(join(pairs, rng).encode() + b"\n")
    reply = join(soft(rng, rid, legal, chatter=False), rng).encode() + b"\n"
    if rng.random() < 0.04:
        bad = hard(rng, reply[:-1], rid)
        if isinstance(bad, bytes):
            write([*lines, bad])
        elif bad == "partial":
            write([*lines, reply[:-1]])
        elif bad == "close":
            write(lines)
            os.close(1)
            time.sleep(10)
            sys.exit(0)
        else:
            write(lines)
            sys.exit(rng.choice([0, 1, 3]))
        return
    if rng.random() < 0.05:  # the same reply twice: the second is stale at the next request
        lines.append(reply)
    write([*lines, reply])


def hello_line(seed: str | None) -> bytes:
    valid = '{"name":" fuzz","version":3,"author":"' + "a" * 300 + '","x":' + deep(1000) + "}"
    if seed is None:
        return valid.encode() + b"\n"
    rng = random.Random(seed)
    pairs = [('"name"', rng.choice(['"fuzz"', '" fuzz\\u0000"', '"' + "n" * 500 + '"']))]
    for key in ('"version"', '"author"', '"protocol"', '"extra"'):
        if rng.random() < 0.5:
            pairs.append((key, value(rng)))
    line = join(pairs, rng).encode()
    if rng.random() < 0.5:
        return line + b"\n"
    r = rng.random()
    if r < 0.3:
        return line[: rng.randrange(len(line))] + b"\n"
    if r < 0.5:
        key = rng.choice(['"name"', '"version"', '"author"'])
        bad = rng.choice([*HARD_VALUES, deep(rng.randint(33, 1023)), "7", "[]", "{}", "null"])
        return line[:-1] + f",{key}:{bad}}}\n".encode()
    if r < 0.7:
        at = rng.randrange(len(line))
        return line[:at] + rng.choice([b"\xff", b"\xed\xa0\x80", b"\x00"]) + line[at:] + b"\n"
    if r < 0.8:
        return b'{"name":"' + b"n" * (MIB + 1) + b'"}\n'
    if r < 0.9:
        return b"[]\n"
    return b""  # say nothing and exit: a start that failed


def main() -> None:
    seed = sys.argv[1] if len(sys.argv) > 1 else None
    match, seat = "", 0
    for text in sys.stdin:
        message = json.loads(text)
        kind = message["type"]
        if kind == "hello":
            line = hello_line(seed)
            if not line:
                sys.exit(2)
            write([line])
        elif kind == "start":
            match, seat = str(message["match"]), int(message["seat"])
        elif kind == "act":
            rng = random.Random(f"{match}:{seat}:{message['step']}")
            answer(rng, int(message["id"]), list(message["legal"]))
        elif kind == "bye":
            return


if __name__ == "__main__":
    main()

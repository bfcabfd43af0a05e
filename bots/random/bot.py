"""A bot that plays any game from `legal` alone, written against the bare protocol.

Its generator is seeded from the match id and its seat (harmless, and reproducible); the game's
own seed is never sent to bots.
"""

import json
import random
import sys

rng = random.Random(0)
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = {"name": "random", "version": "1.0"}
    elif kind == "start":
        rng = random.Random(f"{message['match']}:{message['seat']}")
        continue
    elif kind == "act":
        reply = {"id": message["id"], "index": rng.randrange(len(message["legal"]))}
    elif kind == "bye":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()

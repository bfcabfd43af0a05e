"""Plays correctly, but exits after every end instead of waiting for the next start."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        sys.stdout.write('{"name": "exits-after-end"}\n')
    elif message["type"] == "act":
        sys.stdout.write(json.dumps({"id": message["id"], "index": 0}) + "\n")
    elif message["type"] in ("end", "bye"):
        break
    sys.stdout.flush()

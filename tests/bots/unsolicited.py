"""Writes chatter lines nobody asked for after every end: they must be dropped, not faulted."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    out = None
    if message["type"] == "hello":
        out = {"name": "unsolicited"}
    elif message["type"] == "act":
        out = {"id": message["id"], "index": 0}
    elif message["type"] == "end":
        sys.stdout.write('{"chatter": true}\n')
    elif message["type"] == "bye":
        break
    if out is not None:
        sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()

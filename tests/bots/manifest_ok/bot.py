"""A bot with a manifest: plays the first legal action by value."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"name": "good", "version": "2.1"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"id": message["id"], "action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break

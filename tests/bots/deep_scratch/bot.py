"""Builds a folder tree 5,000 levels deep in its scratch (HOME) before answering hello, then
plays the first legal action: its scratch is longer than PATH_MAX and deeper than Python's
recursion limit."""

import json
import os
import sys

home = os.environ["HOME"]
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        os.chdir(home)
        for _ in range(5000):
            os.mkdir("d")
            os.chdir("d")
        with open("leaf", "w") as handle:
            handle.write("the bottom\n")
        os.symlink("/", "to-root")  # a link to follow would lead to everything
        os.chdir(home)
        reply = {"name": "deep-scratch"}
    elif message["type"] == "act":
        reply = {"id": message["id"], "index": 0}
    elif message["type"] == "bye":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()

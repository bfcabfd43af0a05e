"""The smallest conforming bot: answers hello, then index 0 to every act (stdlib json)."""

import json
import sys

write, flush = sys.stdout.write, sys.stdout.flush
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "act":
        write(f'{{"id":{message["id"]},"index":0}}\n')
    elif kind == "hello":
        write('{"name":"minimal"}\n')
    elif kind == "bye":
        break
    else:
        continue
    flush()

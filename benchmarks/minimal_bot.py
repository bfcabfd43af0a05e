"""The smallest conforming bot: answers hello, then index 0 to every act (stdlib json)."""

import json
import sys

write, flush = sys.stdout.write, sys.stdout.flush
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "act":
        write('{"id":%d,"index":0}\n' % message["id"])
    elif kind == "hello":
        write('{"name":"minimal"}\n')
    elif kind == "bye":
        break
    else:
        continue
    flush()

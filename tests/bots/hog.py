"""At its first decision forks children that each hold some memory, then takes its time.

``hog.py [CHILDREN MIB [setsid] [MARKER]]`` (3 children of 100 MiB by default): each child
touches MIB MiB and tells the bot it is ready; with ``setsid`` the children leave the bot's
session (only a uid of its own still finds them). The children are forks, so they run whatever
the interpreter, and carry the bot's command line (with MARKER) for a test to find in /proc.
"""

import os
import sys
import time

from _serve import serve

children = int(sys.argv[1]) if len(sys.argv) > 2 else 3
mib = int(sys.argv[2]) if len(sys.argv) > 2 else 100
setsid = "setsid" in sys.argv[3:]
held = []


def hold(ready):
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    if setsid:
        os.setsid()
    data = b"1" * (mib << 20)
    os.write(ready, b"r")
    time.sleep(3600)
    del data


def act(message, n):
    if n == 1:
        for _ in range(children):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:
                try:
                    hold(write)
                finally:
                    os._exit(0)
            os.close(write)
            held.append((pid, read))
        for _, read in held:
            os.read(read, 1)
        time.sleep(0.5)  # long enough for several samples


serve("hog", act)

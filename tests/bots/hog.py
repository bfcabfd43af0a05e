"""At its first decision starts children that each hold some memory, then takes its time.

``hog.py CHILDREN MIB [setsid]``: each child touches MIB MiB and tells the bot it is ready;
with ``setsid`` the children leave the bot's session (only a uid of its own still finds them).
Their command line carries the match id, so a test can look for them in /proc.
"""

import subprocess
import sys
import time

from _serve import serve

children = int(sys.argv[1])
mib = int(sys.argv[2])
setsid = "setsid" in sys.argv[3:]
HOLD = "import sys, time; x = b'1' * (int(sys.argv[1]) << 20); print('ready', flush=True); time.sleep(3600)"
match_id = ""
held = []


def act(message, n):
    if n == 1:
        for _ in range(children):
            held.append(
                subprocess.Popen(
                    [sys.executable, "-c", HOLD, str(mib), match_id],
                    stdout=subprocess.PIPE,
                    start_new_session=setsid,
                )
            )
        for child in held:
            child.stdout.readline()
        time.sleep(0.5)  # long enough for several samples


def on_start(message):
    global match_id
    match_id = message["match"]


serve("hog", act, on_start=on_start)

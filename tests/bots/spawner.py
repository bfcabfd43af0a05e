"""Starts a child that sleeps for an hour, writes its pid to stderr, then hangs: the arena must
kill the whole process group."""

import subprocess
import sys
import time

from _serve import serve


def act(message, n):
    if n == 1:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        sys.stderr.write(f"child pid {child.pid}\n")
        sys.stderr.flush()
    if n == 3:
        time.sleep(3600)


serve("spawner", act)

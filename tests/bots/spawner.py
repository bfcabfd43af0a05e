"""Starts a child that sleeps for an hour, then hangs: the arena must kill the whole process
group. The child's command line carries the match id, so a test can look for it in /proc
(pids inside a sandbox's pid namespace mean nothing outside it)."""

import subprocess
import sys
import time

from _serve import serve

match_id = ""


def act(message, n):
    if n == 1:
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", match_id])
    if n == 3:
        time.sleep(3600)


def on_start(message):
    global match_id
    match_id = message["match"]


serve("spawner", act, on_start=on_start)

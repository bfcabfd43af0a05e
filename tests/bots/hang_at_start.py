"""Answers hello, then never answers a decision (and ignores bye): keeps a match waiting."""

import signal
import time

from _serve import serve


def act(message, n):
    time.sleep(3600)


signal.signal(signal.SIGTERM, signal.SIG_IGN)
serve("hang-at-start", act)

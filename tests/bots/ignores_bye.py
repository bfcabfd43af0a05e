"""Plays the first legal action, then ignores bye, the end of its input and SIGTERM: it stays
until it is killed."""

import signal
import time

from _serve import serve

signal.signal(signal.SIGTERM, signal.SIG_IGN)
serve("ignores-bye")
while True:
    time.sleep(3600)

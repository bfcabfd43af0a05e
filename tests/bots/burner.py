"""Plays correctly, taking 0.1 s per decision, while a thread of its own burns CPU from the
start of the match on."""

import threading
import time

from _serve import serve


def burn():
    while True:
        pass


def act(message, n):
    time.sleep(0.1)


def on_start(message):
    if threading.active_count() == 1:
        threading.Thread(target=burn, daemon=True).start()


serve("burner", act, on_start=on_start)

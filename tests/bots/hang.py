"""Stops answering (sleeps forever) on its third decision."""

import time

from _serve import serve


def act(message, n):
    if n == 3:
        time.sleep(3600)


serve("hang", act)

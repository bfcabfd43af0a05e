"""Plays correctly but takes 0.15 s over every decision."""

import time

from _serve import serve


def act(message, n):
    time.sleep(0.15)


serve("slow", act)

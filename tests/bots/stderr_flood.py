"""Writes 200 KiB to stderr on every decision, and plays correctly."""

import sys

from _serve import serve


def act(message, n):
    sys.stderr.write(f"flood {n} " + "y" * 200_000 + "\n")
    sys.stderr.flush()


serve("stderr-flood", act)

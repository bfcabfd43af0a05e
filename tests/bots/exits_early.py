"""Exits cleanly (status 0) in the middle of its second decision."""

import sys

from _serve import serve


def act(message, n):
    if n == 2:
        sys.exit(0)


serve("exits-early", act)

"""Raises on its third decision: the process dies mid-match."""

from _serve import serve


def act(message, n):
    if n == 3:
        raise RuntimeError("boom: the test bot crashes here")


serve("crash", act)

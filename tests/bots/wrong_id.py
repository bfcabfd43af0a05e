"""Answers its second decision with an id that was never asked."""

from _serve import serve

serve("wrong-id", lambda m, n: {"id": m["id"] + 1000, "index": 0} if n == 2 else None)

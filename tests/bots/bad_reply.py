"""Answers its second decision with neither action nor index."""

from _serve import serve

serve("bad-reply", lambda m, n: {"id": m["id"], "choice": 0} if n == 2 else None)

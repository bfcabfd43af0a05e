"""Answers its second decision with an action not in legal."""

from _serve import serve

serve("illegal", lambda m, n: {"id": m["id"], "action": "no such action"} if n == 2 else None)

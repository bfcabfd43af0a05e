"""Answers its second decision with a 2 MiB line."""

from _serve import serve

serve(
    "oversize",
    lambda m, n: {"id": m["id"], "index": 0, "debug": "x" * (2 << 20)} if n == 2 else None,
)

"""Answers its second decision with a line that is not JSON."""

from _serve import serve

serve("garbage", lambda m, n: b"this is not json {\n" if n == 2 else None)

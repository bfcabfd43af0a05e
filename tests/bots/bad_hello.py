"""Answers hello without a name."""

from _serve import serve

serve("bad-hello", hello={"hello": "world"})

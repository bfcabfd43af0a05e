"""Plays the first legal action, with a debug note each time."""

from _serve import serve

serve("good", lambda m, n: {"id": m["id"], "action": m["legal"][0], "debug": f"act {n}"})

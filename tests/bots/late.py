"""Answers its second decision twice: the duplicate is a stale reply that must be dropped."""

from _serve import send, serve


def act(message, n):
    if n == 2:
        send({"id": message["id"], "index": 0})
        return {"id": message["id"], "index": 0}
    return None


serve("late", act)

"""The one way a request is refused: :class:`Refused`, answered as JSON ``{"error": ...}`` on
the API and as a page elsewhere, with its 4xx status and a message safe to show."""

from __future__ import annotations


class Refused(Exception):
    """A request refused with ``status``; ``message`` tells the client why (no internals)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}

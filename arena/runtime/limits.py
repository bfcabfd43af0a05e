"""A bot's time limits: plain data, kept apart from the bot processes that obey them so that
reading a league's configuration (``arena league status``) does not load the process machinery
(:mod:`arena.runtime.botproc` re-exports :class:`TimeLimits`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimeLimits:
    """How long a bot may take. Times in seconds."""

    decision: float = 1.0
    """Free time for each decision."""
    bank: float = 10.0
    """Extra time per match: a decision that takes longer than ``decision`` draws the rest from
    the bank; the decision times out when the bank is empty too."""
    startup: float = 10.0
    """From starting the process to its answer to ``hello``."""
    grace: float = 0.5
    """After ``bye`` (or end of input), how long a bot has to exit before it is killed."""

    def __post_init__(self) -> None:
        for name in ("decision", "bank", "startup", "grace"):
            if getattr(self, name) < 0:
                raise ValueError(f"time limit {name} must not be negative")

"""A bot's time limits and resource budget: plain data, kept apart from the bot processes that
obey them, so that reading a league's configuration (``arena league status``) does not load the
process machinery (:mod:`arena.runtime.botproc` re-exports :class:`TimeLimits`, and
:mod:`arena.runtime.usage` :class:`Budget`)."""

from __future__ import annotations

import os
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


@dataclass(frozen=True)
class Budget:
    """Caps on a bot's processes taken together (0: no cap), and how often they are sampled."""

    cpu_seconds_per_match: float = 0.0
    """CPU seconds of all the bot's processes and threads over one match."""
    memory_mb_per_bot: float = 0.0
    """Resident memory of all the bot's processes together, in MiB, at any sample."""
    sample_seconds: float = 0.05
    """Time between two samples of ``/proc`` (one sampler serves every bot of the process)."""

    def __post_init__(self) -> None:
        if self.cpu_seconds_per_match < 0 or self.memory_mb_per_bot < 0:
            raise ValueError("budget caps must not be negative")
        if self.sample_seconds <= 0:
            raise ValueError("sample_seconds must be positive")


def cpu_count() -> int:
    """The cores this process may run on (its affinity, where the system has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1

"""How a bot process is confined: the command that starts it, inside a sandbox.

PLACEHOLDER: this module fixes the interface only; the isolation itself is being written.
The bot runner calls :func:`confine` and starts the result with ``subprocess.Popen``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Limits:
    """Resource limits for one bot process (and everything it starts)."""

    memory_mb: int = 1024
    """Address space per process (RLIMIT_AS)."""
    cpu_seconds: int = 600
    """CPU time per process over its whole life (RLIMIT_CPU); persistent bots live long."""
    processes: int = 64
    """Processes and threads the bot may have at once."""
    file_size_mb: int = 64
    """Largest file the bot may write (RLIMIT_FSIZE)."""


@dataclass(frozen=True)
class Confined:
    """Everything needed to start a confined bot with ``subprocess.Popen``."""

    argv: list[str]
    cwd: str
    env: dict[str, str]
    preexec_fn: Callable[[], None] | None = None
    pass_fds: tuple[int, ...] = field(default=())
    method: str = "none"
    """Which isolation is in force: ``bubblewrap``, ``rlimits`` or ``none``."""


def confine(argv: Sequence[str], bot_dir: Path, scratch: Path, limits: Limits) -> Confined:
    """The command that runs ``argv`` for a bot in ``bot_dir`` with ``scratch`` writable."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(scratch),
        "TMPDIR": str(scratch),
        "LANG": "C.UTF-8",
    }
    return Confined(list(argv), str(bot_dir), env)

"""What the command groups share: league names, time options, loading bots."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena.league.config import MAX_SECONDS, MAX_SEED, MAX_WORKERS, ConfigError
from arena.league.core import League, LeagueError
from arena.runtime.limits import TimeLimits
from arena.terminal import Seconds, failure

if TYPE_CHECKING:
    from arena.runtime.botproc import RunLimits
    from arena.runtime.manifest import BotSpec

SEED = click.IntRange(min=0, max=MAX_SEED)


DEFAULT_ROOT = Path("results")


def league_path(text: str) -> Path:
    """A league named by a path, or by a bare name under ``results/``."""
    if not text.strip():
        raise click.BadParameter("an empty name: give a league name or folder", param_hint="L")
    path = Path(text)
    if path.exists() or "/" in text or text.startswith("."):
        return path
    return DEFAULT_ROOT / text


def open_league(text: str, read_only: bool = False) -> League:
    """The league ``text`` names; ``read_only`` for commands that only read it (they then
    work on a league they cannot write, and never change one)."""
    try:
        return League.open(league_path(text), read_only)
    except (LeagueError, ConfigError) as exc:
        raise failure(exc) from None


WORKERS = click.IntRange(min=1, max=MAX_WORKERS)

league_option = click.option(
    "--league",
    "league_name",
    required=True,
    metavar="L",
    help="The league folder (a bare name means results/NAME).",
)


def time_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The time limits every command that runs bots accepts."""
    for option in reversed(
        [
            click.option(
                "--decision-time",
                type=Seconds(min=0.001, max=MAX_SECONDS),
                default=TimeLimits.decision,
                show_default=True,
                help="Seconds free for each decision.",
            ),
            click.option(
                "--time-bank",
                type=Seconds(min=0, max=MAX_SECONDS),
                default=TimeLimits.bank,
                show_default=True,
                help="Extra seconds per match for decisions that run over.",
            ),
            click.option(
                "--startup-time",
                type=Seconds(min=0.001, max=MAX_SECONDS),
                default=TimeLimits.startup,
                show_default=True,
                help="Seconds a bot has to start and answer hello.",
            ),
        ]
    ):
        command = option(command)
    return command


def run_limits(decision_time: float, time_bank: float, startup_time: float) -> RunLimits:
    from arena.runtime.botproc import RunLimits  # the process machinery, for commands that run bots

    return RunLimits(time=TimeLimits(decision_time, time_bank, startup_time))


def load_bots(texts: Sequence[str]) -> tuple[BotSpec, ...]:
    from arena.runtime.manifest import BotError, load_bot  # for commands that load bots

    try:
        return tuple(load_bot(text) for text in texts)
    except BotError as exc:
        raise failure(exc) from None

"""The ``arena`` command: a thin shell over the library, one module per command group.

- :mod:`arena.cli.play`: ``games``, ``play``, ``human``, ``check`` (bots without a league)
- :mod:`arena.cli.kit`: ``kit`` (a starter bot)
- :mod:`arena.cli.league`: ``league ...``, ``submit``, ``bots``, ``withdraw``
- :mod:`arena.cli.user`: ``user ...`` (the accounts of a league's server)
- :mod:`arena.cli.audit`: ``audit``
- :mod:`arena.cli.abtest`: ``abtest`` (is NEW better than OLD?)
- :mod:`arena.cli.site`: ``leaderboard``, ``serve``
- :mod:`arena.cli.server`: ``server`` (the web server, the league running behind it)
- :mod:`arena.cli.common`: what they share (league names, time options, loading bots)
- :mod:`arena.cli.group`: the main group (commands imported when run; clear errors)

Every command is registered here, in :data:`COMMANDS`, and nowhere else; a command's module
is imported only when that command runs (or ``--help`` lists them all).
"""

from __future__ import annotations

import click

from arena import __version__, native
from arena.cli.group import LazyGroup

COMMANDS: dict[str, str] = {
    "games": "arena.cli.play:games",
    "play": "arena.cli.play:play",
    "human": "arena.cli.play:human",
    "check": "arena.cli.play:check",
    "kit": "arena.cli.kit:kit",
    "league": "arena.cli.league:league",
    "submit": "arena.cli.league:submit",
    "bots": "arena.cli.league:bots",
    "withdraw": "arena.cli.league:withdraw",
    "user": "arena.cli.user:user",
    "audit": "arena.cli.audit:audit",
    "abtest": "arena.cli.abtest:abtest",
    "leaderboard": "arena.cli.site:leaderboard",
    "serve": "arena.cli.site:serve",
    "server": "arena.cli.server:server",
}
"""Every command, by name: the module and attribute that define it (imported when it runs)."""


@click.group(
    cls=LazyGroup,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(
    __version__, prog_name="arena", message=f"%(prog)s %(version)s; {native.describe()}"
)
def main() -> None:
    """arena: leagues of card-game bots.

    Bots for Ten, Take 5 and Phase 10 speak JSON over stdin/stdout; the arena plays them against
    each other, rates them with TrueSkill and renders leaderboards.
    """

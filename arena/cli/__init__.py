"""The ``arena`` command: a thin shell over the library, one module per command group.

- :mod:`arena.cli.play`: ``games``, ``play``, ``human``, ``check`` (bots without a league)
- :mod:`arena.cli.kit`: ``kit`` (a starter bot)
- :mod:`arena.cli.league`: ``league ...``, ``submit``, ``bots``, ``withdraw``
- :mod:`arena.cli.audit`: ``audit``
- :mod:`arena.cli.abtest`: ``abtest`` (is NEW better than OLD?)
- :mod:`arena.cli.site`: ``leaderboard``, ``serve``
- :mod:`arena.cli.common`: what they share (error handling, league names, time options)

Every command is registered here, in :data:`COMMANDS`, and nowhere else.
"""

from __future__ import annotations

import click

from arena import __version__, native
from arena.cli import abtest, audit, kit, league, play, site
from arena.cli.common import ArenaGroup

COMMANDS: tuple[click.Command, ...] = (
    play.games,
    play.play,
    play.human,
    play.check,
    kit.kit,
    league.league,
    league.submit,
    league.bots,
    league.withdraw,
    audit.audit,
    abtest.abtest,
    site.leaderboard,
    site.serve,
)


@click.group(
    cls=ArenaGroup,
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


for _command in COMMANDS:
    main.add_command(_command)

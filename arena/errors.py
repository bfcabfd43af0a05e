"""Errors of the arena itself, told apart from the faults of bots.

A bot that misbehaves is data (a :class:`~arena.runtime.botproc.Fault` in the match record). When the
arena cannot do its own part (start a sandbox, read a bot's folder, find an interpreter, use its
cache), no bot is to blame: :class:`ArenaSetupError` stops the match before it is recorded, so
no bot loses a game, a rating point or its place in a league for it.
"""

from __future__ import annotations


class ArenaSetupError(RuntimeError):
    """The arena cannot set up what a match needs; the operator must fix the machine.

    Raised from the bot pool and the sandbox; it propagates out of ``run_match`` (the match is
    not recorded), stops a league run, and makes the command line print one line and exit 1.
    """

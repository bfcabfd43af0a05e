"""The ``arena`` group: commands imported only when one is run, and errors of the arena or the
machine (not of a bot) as one clear line. Light on purpose: ``arena --version`` and the start of
every command pay for nothing else.

Run as the ``arena`` program (not called by other code), the group keeps Python's cycle collector
off what the process imports to start, the modules and their classes, functions and constants,
which live until the process exits anyway: the collector is paused while a command's modules are
imported, and what the imports made goes to its permanent generation (:func:`gc.freeze`), which
no collection walks, the full one at exit included. That is 8-9 ms of the 90 of ``arena league
status`` (issue 15). What the command allocates afterwards is collected as before."""

from __future__ import annotations

import contextlib
import errno
import gc
import importlib
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import click

from arena.errors import ArenaSetupError
from arena.terminal import describe_os_error


class ArenaGroup(click.Group):
    """The main group. An :class:`ArenaSetupError` (the arena, not a bot, failed) and errors of
    the machine rather than of the arena (a folder that cannot be written, a full disk, a
    database that cannot be read) end as one line on stderr and exit status 1, not as a
    traceback; a broken pipe is left to click, which exits quietly."""

    program = False
    """Whether the group runs as the program (see :meth:`__call__`)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """``main()`` with no arguments, as the ``arena`` script and ``python -m arena`` call it,
        reads the command line of the process: then the group is the program, and what is
        imported so far is kept from the collector. A caller that passes its own arguments
        (the tests, CliRunner) keeps its collector as it was."""
        if not args and "args" not in kwargs:
            self.program = True
            gc.freeze()
        return super().__call__(*args, **kwargs)

    @contextlib.contextmanager
    def starting(self) -> Iterator[None]:
        """Imports the program starts with: the collector paused while they run, and what they
        made kept from it afterwards (nothing changes when the group is not the program)."""
        if not self.program:
            yield
            return
        collecting = gc.isenabled()
        gc.disable()
        try:
            yield
        finally:
            gc.freeze()
            if collecting:
                gc.enable()

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ArenaSetupError as exc:
            raise click.ClickException(f"the arena cannot run bots here: {exc}") from None
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise
            raise click.ClickException(describe_os_error(exc)) from None
        except Exception as exc:
            message = explained(exc)
            if message is None:
                raise
            raise click.ClickException(message) from None


def explained(exc: Exception) -> str | None:
    """The line for an error of the league's database or of a path, in this order: a failed
    SQLite call, a damaged record, a NUL byte in a path; None for any other exception.

    sqlite3 and orjson are not imported for it: an exception of theirs comes from a command
    that imported them, and ``arena --version`` starts without both (2-3 ms)."""
    if "sqlite3" in sys.modules:
        import sqlite3

        if isinstance(exc, sqlite3.Error):
            from arena.league.store import explain  # only when the database failed

            return f"the league database: {explain(exc)}"
    if "orjson" in sys.modules:
        import orjson

        if isinstance(exc, orjson.JSONDecodeError):
            return (
                f"the league database holds a damaged record ({exc}): restore league.db from a copy"
            )
    if isinstance(exc, ValueError) and "embedded null" in str(exc):
        return "a path holds a NUL byte (\\x00)"  # 3.11, 3.12: byte; 3.13: character
    return None


class LazyGroup(ArenaGroup):
    """A group whose commands are ``"module:attribute"`` paths, imported on first use."""

    def __init__(self, *args: Any, lazy: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self.lazy, *super().list_commands(ctx)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        path = self.lazy.get(cmd_name)
        if path is None:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = path.partition(":")
        with self.starting():
            command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command), path
        return command

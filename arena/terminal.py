"""Bot-controlled text, shown safely on the operator's terminal.

A bot controls its hello name and version, its manifest's fields, its stderr and the messages of
its faults; written raw, an ANSI sequence in any of them could clear the screen, move the cursor
or fake the arena's own output, and a bidi override could reorder what the operator reads.
:func:`shown` writes every such character as a visible escape (``\\x1b``, ``\\u202e``), so the
operator sees exactly what the bot sent and nothing it did not. Newlines are escaped too: where
the arena lays out several lines (a stderr tail), it splits first and shows each line.
"""

from __future__ import annotations

import errno
import math
import unicodedata
from typing import Any

import click

FORMATTING = frozenset(
    "\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f"
    "\u2028\u2029\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
)
"""Invisible or reordering characters, escaped even though some count as printable elsewhere."""


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def unsafe(char: str) -> bool:
    """True for a character a terminal may act on or hide: C0 and C1 controls, DEL, line and
    paragraph separators, bidi and other formatting characters, surrogates, private use, and
    unassigned code points."""
    if char in FORMATTING:
        return True
    return unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def shown(text: object) -> str:
    """``text`` (or ``str(text)``) with every unsafe character written as a visible escape;
    a backslash stays as it is (the output is for reading, not for parsing back)."""
    value = text if isinstance(text, str) else str(text)
    if value.isascii():  # no formatting character is ASCII: the common case, in one C call
        if value.isprintable():
            return value
    elif value.isprintable() and FORMATTING.isdisjoint(value):
        return value
    return "".join(_escape(c) if unsafe(c) else c for c in value)


def shown_lines(text: str) -> list[str]:
    """The lines of a multi-line text the bot wrote (e.g. its stderr tail), each one shown."""
    return [shown(line) for line in text.splitlines()]


def printable_name(name: str) -> bool:
    """True if a name (a bot's hello name, a manifest field) holds no unsafe character."""
    return not any(unsafe(c) for c in name)


def failure(exc: BaseException) -> click.ClickException:
    """An error of the library as the CLI's one clean error; its text may quote bot output (a
    failed submission check quotes the bot's stderr), so each line is shown escaped."""
    return click.ClickException("\n".join(shown_lines(str(exc))) or type(exc).__name__)


class Seconds(click.FloatRange):
    """A time limit: a finite number of seconds in a range (``nan`` passes FloatRange)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number of seconds", param, ctx)
        return number


def describe_os_error(exc: OSError, path: object = None) -> str:
    """One line for an error of the machine: the file (``path`` if the error names none), what
    went wrong, what to do."""
    where = exc.filename if exc.filename is not None else (path or "")
    what = exc.strerror or str(exc)
    hint = {
        errno.ENOSPC: "free some disk space and run it again",
        errno.EDQUOT: "free some disk space and run it again",
        errno.EROFS: "the file system is read-only: choose another place",
        errno.EACCES: "it cannot be written or read here: choose another place",
        errno.EPERM: "it cannot be written or read here: choose another place",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.ENOENT: "the folder does not exist: create it first",
    }.get(exc.errno or 0)
    return (f"{where}: " if where else "") + what + (f" ({hint})" if hint else "")

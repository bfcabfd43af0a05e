"""Whether the compiled modules (the rules, the match loop and a few other hot paths; mypyc) or their
pure-Python sources run, decided once per process.

``setup.py`` compiles :data:`NATIVE_MODULES` when it can (it reads the list from this file) and
writes ``arena/_compiled.json`` with a digest of each source it compiled. The compiled modules are
used only if every one of them is present and every source is unchanged since the build;
otherwise (or with ``ARENA_PURE_PYTHON=1`` in the environment) all of them are imported from their
``.py`` files, so an edited rule is never shadowed by an old binary, and compiled and pure modules
are never mixed (a compiled class must not meet a pure copy of its base class). Both builds run
the same source.

Importing this module changes nothing. :func:`load_rules` acts on the decision, and is called
from one place, ``arena/__init__.py``: that file runs before Python looks for any module of the
package, and ``arena.players`` (not only ``arena.games``) must be found from the chosen build.
"""

from __future__ import annotations

import functools
import importlib.machinery
import json
import os
import sys
import zlib
from collections.abc import Mapping, Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

NATIVE_MODULES: tuple[str, ...] = (
    "arena.games.base",
    "arena.games.take5",
    "arena.games.ten",
    "arena.games.phase10",
    "arena.games.phase10_groups",
    "arena.players",
    "arena.match",
    "arena.runtime.wire",
    "arena.runtime.botproc",
    "arena.league.ffa",
    "arena.site.tables",
    "arena.site.frames",
)
"""The modules mypyc compiles, the one list (setup.py reads it from this file's source)."""

GROUP = "arena._compiled"
"""mypyc's group name: setup.py builds one shared library for all of :data:`NATIVE_MODULES`."""
SHARED_LIBRARY = f"{GROUP}__mypyc"
"""mypyc's one library for the whole group; each compiled module is a small shim into it."""
PACKAGE = Path(__file__).resolve().parent
MANIFEST = PACKAGE / "_compiled.json"
"""Written by setup.py after a build: each compiled module's name and the digest of its source."""
PURE_ENV = "ARENA_PURE_PYTHON"


def source_of(module: str, package: Path = PACKAGE) -> Path:
    """The .py file of ``arena.x.y`` under the ``arena`` folder ``package``."""
    return package.joinpath(*module.split(".")[1:]).with_suffix(".py")


def digest(source: Path) -> str:
    """What the manifest records of a compiled source (a source whose digest differs is stale):
    its length and CRC-32. It tells an edited file from the one compiled, which is all it is
    for, and costs every start of the command nothing (hashlib's import alone is 2 ms)."""
    data = source.read_bytes()
    return f"{len(data)}-{zlib.crc32(data):08x}"


def _binary_exists(module: str, package: Path) -> bool:
    stem = source_of(module, package).with_suffix("")
    return any(
        Path(f"{stem}{suffix}").exists() for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


def why_pure(package: Path = PACKAGE, environ: Mapping[str, str] = os.environ) -> str | None:
    """None if the compiled modules under ``package`` may be used, else the reason they may not."""
    if environ.get(PURE_ENV):
        return f"{PURE_ENV} is set"
    manifest = package / MANIFEST.name
    if not manifest.exists():
        return f"not compiled (no C compiler or mypyc at install time, or {PURE_ENV} then)"
    try:
        built: dict[str, str] = json.loads(manifest.read_text())
    except (OSError, ValueError) as exc:
        return f"unreadable {manifest.name}: {exc}"
    if not _binary_exists(SHARED_LIBRARY, package):
        return "mypyc's shared library is missing"
    for module in NATIVE_MODULES:
        source = source_of(module, package)
        if module not in built or not _binary_exists(module, package):
            return f"{module} was not compiled"
        if digest(source) != built[module]:
            return f"{source.name} changed since it was compiled (reinstall to recompile)"
    return None


@functools.cache
def chosen() -> str | None:
    """This process's decision: None if the rules run compiled, else why they run pure."""
    return why_pure()


class SourcesFirst:
    """Finds each of :data:`NATIVE_MODULES` at its .py file, whatever binary lies beside it.

    It answers for those names only; every other import goes on to Python's own finders.
    """

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in NATIVE_MODULES:
            return None
        import importlib.util  # only in a pure build, when a rules module is found

        return importlib.util.spec_from_file_location(fullname, source_of(fullname))


def load_rules() -> None:
    """Have the rules modules imported from the build :func:`chosen` for this process.

    Compiled: nothing to do, since Python's own finder prefers a binary to the source beside it.
    Pure: a :class:`SourcesFirst` goes first on ``sys.meta_path`` (once), so that a binary left by
    a build is never picked. Must run before any of :data:`NATIVE_MODULES` is imported, which is
    why ``arena/__init__.py`` calls it.
    """
    if chosen() is None or any(isinstance(finder, SourcesFirst) for finder in sys.meta_path):
        return
    sys.meta_path.insert(0, SourcesFirst())


def native() -> bool:
    """Whether the rules modules run compiled."""
    return chosen() is None


def describe() -> str:
    """One line for ``arena --version`` and the benchmarks."""
    why = chosen()
    if why is None:
        return "rules compiled with mypyc"
    return f"rules in pure Python: {why}"

"""Where the files the arena reads at run time are: templates, bundled bots, rules, schemas.

The repository's top-level folders (``templates/``, ``bots/``, ``seeds/``, ``protocol/``) are the
source of truth. A wheel cannot carry folders beside its package, so the build (setup.py's
``build_py``) copies them into the package as ``arena/_data/<folder>``. This module finds them
through :mod:`importlib.resources` whatever the install kind:

- a wheel (``pip install .`` or from an index): the packaged copy in ``arena/_data/``;
- an editable install or a source checkout on ``PYTHONPATH``: no packaged copy exists (the build
  writes it only into the wheel), so the folder of the repository the package sits in.

Everything is returned as a real :class:`~pathlib.Path` (a folder on disk), because bots run from
their folder inside the sandbox, which binds it read-only, and Jinja2 loads templates from a
folder. A zipped install (no real folder) is refused with a clear message.
"""

from __future__ import annotations

from pathlib import Path

DATA = "_data"
"""The package's folder of copies, inside ``arena``."""
FOLDERS = ("templates", "bots", "seeds", "protocol")
"""The top-level folders of the repository that the build copies into ``arena/_data``."""
BUNDLED_BOTS = ("random", "heuristic", "js-random", "reference")
"""The bundled bots, folders of ``bots/``; ``bundled:NAME`` names one (see arena.runtime.manifest)."""
BUNDLED_PREFIX = "bundled:"


class ResourceMissing(FileNotFoundError):
    """A resource is neither packaged nor in a repository checkout: a broken install."""


def package_dir() -> Path:
    """The ``arena`` package's folder on disk."""
    from importlib.resources import files  # only when a resource is asked for (start-up)

    root = files("arena")
    if not isinstance(root, Path):
        raise ResourceMissing(
            f"the arena package is not a folder on disk ({root!r}); install it unzipped"
        )
    return root


def folder(name: str) -> Path:
    """The top-level folder ``name`` (one of :data:`FOLDERS`): the packaged copy when present,
    else the repository's own folder."""
    if name not in FOLDERS:
        raise ValueError(f"unknown resource folder {name!r} (known: {', '.join(FOLDERS)})")
    package = package_dir()
    for candidate in (package / DATA / name, package.parent / name):
        if candidate.is_dir():
            return candidate
    raise ResourceMissing(
        f"{name}/ is neither packaged ({package / DATA / name}) nor beside the package "
        f"({package.parent / name}); reinstall arena (pip install .) or run from a checkout"
    )


def templates() -> Path:
    """The site's Jinja2 templates (``templates/``)."""
    return folder("templates")


def static() -> Path:
    """The site's css and js, copied into every rendered site (``templates/static/``)."""
    return templates() / "static"


def seeds() -> Path:
    """The rules documents and golden games (``seeds/``); the site shows the rules."""
    return folder("seeds")


def protocol() -> Path:
    """The protocol's documents (``protocol/README.md``, ``protocol/WRITING_A_BOT.md``)."""
    return folder("protocol")


def schemas() -> Path:
    """The JSON Schemas of protocol v1, one per message and per game (``protocol/schemas/v1``)."""
    return protocol() / "schemas" / "v1"


def bots() -> Path:
    """The bundled bots' folder (``bots/``), with the copyable helper ``arenabot.py``."""
    return folder("bots")


def bundled_bot(name: str) -> Path:
    """The folder of bundled bot ``name`` (``random``, ``heuristic``, ``js-random``,
    ``reference``)."""
    if name not in BUNDLED_BOTS:
        known = ", ".join(BUNDLED_PREFIX + b for b in BUNDLED_BOTS)
        raise ResourceMissing(f"no bundled bot {name!r} (bundled: {known})")
    path = bots() / name
    if not path.is_dir():
        raise ResourceMissing(f"bundled bot {name!r} is missing from {bots()}; reinstall arena")
    return path

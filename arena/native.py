"""Which rules modules run compiled (mypyc) and which as pure Python, decided once at import.

``setup.py`` compiles :data:`NATIVE_MODULES` when it can and writes ``arena/_compiled.json`` with a
digest of each source it compiled. The compiled modules are used only if every one of them is
present and every source is unchanged since the build; otherwise (or with ``ARENA_PURE_PYTHON=1``
in the environment) all of them are imported from their ``.py`` files, so an edited rule is never
shadowed by an old binary, and compiled and pure modules are never mixed (a compiled class must
not meet a pure copy of its base class). Both paths run the same source.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
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
)
"""The modules setup.py compiles (kept in step with its COMPILED list; a test checks)."""

SHARED_LIBRARY = "arena._compiled__mypyc"
"""mypyc's one library for the whole group; each compiled module is a small shim into it."""
PACKAGE = Path(__file__).resolve().parent
MANIFEST = PACKAGE / "_compiled.json"
PURE_ENV = "ARENA_PURE_PYTHON"


def source_of(module: str, package: Path = PACKAGE) -> Path:
    """The .py file of ``arena.x.y`` under the ``arena`` folder ``package``."""
    return package.joinpath(*module.split(".")[1:]).with_suffix(".py")


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
        if hashlib.sha256(source.read_bytes()).hexdigest() != built[module]:
            return f"{source.name} changed since it was compiled (reinstall to recompile)"
    return None


class _SourcesFirst(importlib.abc.MetaPathFinder):
    """Imports the compiled-capable modules from their .py files, whatever binaries lie beside."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in NATIVE_MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, source_of(fullname))


WHY_PURE = why_pure()
if WHY_PURE is not None and not any(isinstance(f, _SourcesFirst) for f in sys.meta_path):
    sys.meta_path.insert(0, _SourcesFirst())


def native() -> bool:
    """Whether the rules modules run compiled."""
    return WHY_PURE is None


def describe() -> str:
    """One line for ``arena --version`` and the benchmarks."""
    if WHY_PURE is None:
        return "rules compiled with mypyc"
    return f"rules in pure Python: {WHY_PURE}"

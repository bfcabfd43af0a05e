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
from collections.abc import Sequence
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

PACKAGE = Path(__file__).resolve().parent
MANIFEST = PACKAGE / "_compiled.json"
PURE_ENV = "ARENA_PURE_PYTHON"


def source_of(module: str) -> Path:
    return PACKAGE.joinpath(*module.split(".")[1:]).with_suffix(".py")


def _binary_exists(module: str) -> bool:
    source = source_of(module)
    stem = source.with_suffix("")
    return any(
        Path(f"{stem}{suffix}").exists() for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


def _why_pure() -> str | None:
    """None if the compiled modules may be used, else the reason they may not."""
    if os.environ.get(PURE_ENV):
        return f"{PURE_ENV} is set"
    if not MANIFEST.exists():
        return "not compiled (no C compiler or mypyc at install time, or ARENA_PURE_PYTHON then)"
    try:
        built: dict[str, str] = json.loads(MANIFEST.read_text())
    except (OSError, ValueError) as exc:
        return f"unreadable {MANIFEST.name}: {exc}"
    if not _binary_exists("arena._compiled__mypyc"):
        return "mypyc's shared library is missing"
    for module in NATIVE_MODULES:
        if module not in built or not _binary_exists(module):
            return f"{module} was not compiled"
        if hashlib.sha256(source_of(module).read_bytes()).hexdigest() != built[module]:
            return (
                f"{source_of(module).name} changed since it was compiled (reinstall to recompile)"
            )
    return None


class _SourcesFirst(importlib.abc.MetaPathFinder):
    """Imports the compiled-capable modules from their .py files, whatever binaries lie beside."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in NATIVE_MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, source_of(fullname))


WHY_PURE = _why_pure()
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

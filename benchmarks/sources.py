"""Bots' modules loaded from their files, for the benchmarks and the tests: a bot's code is not
on ``sys.path`` (in the sandbox it runs from its own folder), so they import it by path. Standard
library only."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType

_loaded = itertools.count()


def load_source(path: Path, name: str | None = None) -> ModuleType:
    """The module at ``path`` (a ``.py`` file, or a package folder with its submodules) under
    ``name``, or a name of its own each call: two loads never share state, and a package's
    relative imports find its own submodules."""
    name = name or f"loaded_{path.parent.name}_{path.stem}_{next(_loaded)}"
    if path.is_dir():
        spec = importlib.util.spec_from_file_location(
            name, path / "__init__.py", submodule_search_locations=[str(path)]
        )
    else:
        spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a package's submodules import it by this name
    spec.loader.exec_module(module)
    return module

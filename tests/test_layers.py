"""Imports run one way: games <- runtime <- match <- league <- run, site <- cli.

Read from the source with :mod:`ast` (every import, including those inside functions), so a
backward import fails here before it becomes a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "arena"

FLOORS: dict[str, int] = {
    # the ground floor: what every room may use
    "arena": 0,
    "arena.errors": 0,
    "arena.terminal": 0,
    "arena.resources": 0,
    "arena.native": 0,
    "arena.games": 1,
    "arena.runtime": 2,
    "arena.replay": 3,
    "arena.boards": 3,
    "arena.players": 4,
    "arena.human": 4,
    "arena.match": 4,
    "arena.kit": 4,
    "arena.league": 5,
    "arena.abtest": 6,
    "arena.run": 7,
    "arena.site": 7,
    "arena.server": 8,
    "arena.cli": 9,
    "arena.__main__": 10,
}
"""Each room's floor: a module may import from rooms on lower floors and its own room (on the
ground floor, from any room of that floor)."""

APART = {("arena.run", "arena.site"), ("arena.site", "arena.run")}
"""Rooms on one floor that must not import each other (the site reads through the store)."""


def room(module: str) -> str:
    """The longest entry of :data:`FLOORS` that ``module`` belongs to."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        if name in FLOORS:
            return name
    raise KeyError(module)


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name == "arena" or name.startswith("arena.")}


def sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "_data" not in p.parts)


def backward(path: Path) -> list[str]:
    here = room(module_name(path))
    wrong = []
    for target in sorted(imports_of(path)):
        try:
            there = room(target)
        except KeyError:
            continue  # ``from arena import x`` names of the ground floor resolve above
        if there == here:
            continue
        if FLOORS[there] > FLOORS[here] or (FLOORS[there] == FLOORS[here] > 0):
            wrong.append(f"{module_name(path)} ({here}) imports {target} ({there})")
        elif (here, there) in APART:
            wrong.append(f"{module_name(path)} imports {target}: {here} and {there} stay apart")
    return wrong


def test_every_module_has_a_room() -> None:
    for path in sources():
        room(module_name(path))


@pytest.mark.parametrize("path", sources(), ids=lambda p: module_name(p))
def test_imports_run_one_way(path: Path) -> None:
    assert backward(path) == []


def test_a_backward_import_is_caught(tmp_path: Path) -> None:
    assert imports_of(PACKAGE / "runtime" / "pool.py")  # it does import arena modules
    fake = PACKAGE / "runtime" / "_layers_probe.py"
    fake.write_text("def f():\n    from arena.match import run_match\n")
    try:
        assert backward(fake) == [
            "arena.runtime._layers_probe (arena.runtime) imports arena.match (arena.match)",
            "arena.runtime._layers_probe (arena.runtime) imports arena.match.run_match"
            " (arena.match)",
        ]
    finally:
        fake.unlink()


def test_no_module_imports_itself_in_a_circle() -> None:
    graph = {module_name(p): imports_of(p) for p in sources()}
    known = set(graph)

    def targets(module: str) -> set[str]:
        return {t for t in graph[module] if t in known and t != module}

    state: dict[str, int] = {}

    def visit(module: str, trail: list[str]) -> None:
        state[module] = 1
        for target in sorted(targets(module)):
            if state.get(target) == 1:
                pytest.fail("import circle: " + " -> ".join([*trail, module, target]))
            if target not in state:
                visit(target, [*trail, module])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])

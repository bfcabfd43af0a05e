"""Everything the arena reads at run time is found through arena.resources, and a wheel carries it.

Issue 12: the wheel held the ``arena`` package only, so an installed arena had no templates (the
site crashed), no bundled bots (the demo entered only the built-ins) and no rules documents.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from arena import resources
from arena.runtime.manifest import BotError, BotKind, load_bot
from arena.site.build import STATIC, TEMPLATES

REPO = Path(__file__).resolve().parents[1]
NOT_SOURCE = (".git", ".venv", "venv", "build", "dist", "results", "*.egg-info", "__pycache__")
NOT_SOURCE += ("*.py[cod]", "*.so", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis")


def repo_files(folder: str) -> set[str]:
    """The files of a top-level folder of the repository, relative to it (no caches, and no
    compiled module an editable install built there: a wheel builds its own)."""
    root = REPO / folder
    return {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith((".pyc", ".so"))
    }


def test_the_folders_resolve_to_real_folders() -> None:
    for name in resources.FOLDERS:
        folder = resources.folder(name)
        assert folder.is_dir(), name
        assert folder.name == name


def test_templates_and_static_files_resolve() -> None:
    assert (resources.templates() / "base.html").is_file()
    for name in STATIC:
        assert (resources.static() / name).is_file(), name
    assert resources.templates() == TEMPLATES


def test_rules_documents_resolve() -> None:
    from arena.games import GAMES

    for spec in GAMES.values():
        assert (resources.seeds() / spec.rules_file).is_file(), spec.rules_file


def test_schemas_and_protocol_documents_resolve() -> None:
    for message in ("hello", "hello_reply", "start", "act", "reply", "time", "end", "bye"):
        assert (resources.schemas() / f"{message}.json").is_file(), message
    for game in ("take5", "ten", "phase10"):
        assert (resources.schemas() / "games" / f"{game}.json").is_file(), game
    assert (resources.protocol() / "README.md").is_file()
    assert (resources.protocol() / "WRITING_A_BOT.md").is_file()


@pytest.mark.parametrize("name", resources.BUNDLED_BOTS)
def test_bundled_bots_load_by_name_from_anywhere(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # an empty folder: bots/ is not beside it
    spec = load_bot(f"bundled:{name}")
    assert spec.kind is BotKind.PROCESS
    assert spec.directory == resources.bundled_bot(name)
    assert spec.name == name
    assert spec.source == f"bundled:{name}"


def test_an_unknown_bundled_bot_is_a_clear_error() -> None:
    with pytest.raises(BotError, match=r"no bundled bot 'nope' \(bundled: bundled:random"):
        load_bot("bundled:nope")


def test_a_bundled_bot_enters_a_league_from_an_empty_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.league.config import default_config
    from arena.league.core import League

    monkeypatch.chdir(tmp_path)
    League.init(tmp_path / "lg", default_config(seed=1, workers=1))
    with League.open(tmp_path / "lg") as lg:
        done = lg.submit("bundled:random", check=False)
        copied = tmp_path / "lg" / done.entrant.source
    assert (copied / "bot.toml").is_file()
    assert (copied / "bot.py").is_file()


def test_the_demo_enters_the_bundled_bots_not_cwd_relative_paths() -> None:
    from arena.cli.league import DEMO_BOTS

    for bot in DEMO_BOTS:
        load_bot(bot)  # each resolves without a repository folder next to the cwd
    bundled = {b.removeprefix("bundled:") for b in DEMO_BOTS if b.startswith("bundled:")}
    # Every bundled bot but the reference bot: its search takes the demo far past its time.
    assert bundled == set(resources.BUNDLED_BOTS) - {"reference"}


def test_the_packaged_copy_wins_over_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "site-packages" / "arena"
    (package / "_data" / "seeds").mkdir(parents=True)
    (tmp_path / "site-packages" / "seeds").mkdir()  # someone else's seeds/ beside the package
    monkeypatch.setattr(resources, "package_dir", lambda: package)
    assert resources.seeds() == package / "_data" / "seeds"
    with pytest.raises(resources.ResourceMissing, match="templates/ is neither packaged"):
        resources.templates()


def test_setup_copies_exactly_the_resource_folders() -> None:
    """setup.py cannot import arena (it builds it), so its list is kept in step by this test."""
    tree = ast.parse((REPO / "setup.py").read_text("utf-8"))
    assigned = {
        target.id: node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    assert ast.literal_eval(assigned["DATA_FOLDERS"]) == resources.FOLDERS


@pytest.mark.slow
def test_a_wheel_built_from_the_tree_carries_every_resource(tmp_path: Path) -> None:
    """pip wheel (isolated build: setuptools from the index; ARENA_PURE_PYTHON=1, no compile)."""
    source = tmp_path / "src"  # a copy: an in-tree build would leave build/ in the repository
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    env = {**os.environ, "ARENA_PURE_PYTHON": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    out = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
        check=True,
        env=env,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = out.glob("arena-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for folder in resources.FOLDERS:
        expected = repo_files(folder)
        assert expected
        packaged = {
            n.removeprefix(f"arena/_data/{folder}/")
            for n in names
            if n.startswith(f"arena/_data/{folder}/")
        }
        assert packaged == expected, folder
    assert "arena/resources.py" in names
    assert not any(n.startswith(("templates/", "bots/", "seeds/", "protocol/")) for n in names)

"""The Dask executor on a LocalCluster: the same league as the local executor, bots shipped by
content hash, and a worker killed mid-league loses and doubles nothing."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

distributed = pytest.importorskip("distributed")

from arena.cli import main  # noqa: E402
from arena.league.audit import audit  # noqa: E402
from arena.league.core import League  # noqa: E402
from arena.run.cluster import DaskError, run_league_dask  # noqa: E402
from arena.run.local import RunReport, run_league  # noqa: E402
from tests.league.helpers import ROOT, fingerprint, small_league, write_bot  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_resource_tracker_left")


def entrants(tmp_path: Path) -> list[str]:
    return [
        str(ROOT / "bots" / "random"),
        "builtin:random",
        "builtin:first",
        str(write_bot(tmp_path / "src", "firsty")),
    ]


def start_cluster() -> Any:
    return distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The workers' bot cache (set before the workers start, so they inherit it)."""
    folder = tmp_path_factory.mktemp("bot-cache")
    old = os.environ.get("ARENA_BOT_CACHE")
    os.environ["ARENA_BOT_CACHE"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("ARENA_BOT_CACHE", None)
    else:
        os.environ["ARENA_BOT_CACHE"] = old


@pytest.fixture(scope="module")
def client(cache: Path) -> Iterator[Any]:
    with start_cluster() as cluster, distributed.Client(cluster, set_as_default=False) as c:
        yield c


def local(folder: Path, workers: int = 2) -> RunReport:
    with League.open(folder) as lg:
        return run_league(lg, workers, progress=None)


def audited(folder: Path) -> None:
    with League.open(folder) as lg:
        report = audit(lg)
    assert report.ok, [str(p) for p in report.problems]


def test_a_league_on_a_local_cluster_equals_the_local_run(
    tmp_path: Path, client: Any, cache: Path
) -> None:
    bots = entrants(tmp_path)
    here = small_league(tmp_path / "here", bots)
    there = small_league(tmp_path / "there", bots)
    assert local(here).played == 60
    with League.open(there) as lg:
        report = run_league_dask(lg, client=client)
    assert report.played == 60
    a, b = fingerprint(here), fingerprint(there)
    assert a == b
    assert {mode for _, mode, _, _ in a["batches"]} == {"uniform", "adaptive"}
    # Each worker starts each process bot once (random and firsty; three seats, two slots
    # at most), not once per match.
    assert 0 < report.processes_started <= 2 * 2 * 3
    # The two process bots travelled by content hash and are unpacked in the workers' cache.
    unpacked = sorted(p for p in cache.iterdir() if not p.name.startswith("."))
    assert len(unpacked) == 2
    assert all(len(p.name) == 64 and list(p.glob("bots/*/bot.toml")) for p in unpacked)
    audited(here)
    audited(there)
    assert rerun(client) == []  # no worker was lost: every batch went out once
    # The run removed its plugins: the workers hold no bot pools any more.
    plugins = client.run(lambda dask_worker: sorted(dask_worker.plugins))
    assert not any(name.startswith("arena-") for names in plugins.values() for name in names)


def test_bots_from_a_shared_folder(tmp_path: Path, client: Any) -> None:
    bots = entrants(tmp_path)
    here = small_league(tmp_path / "here", bots, budget=24)
    there = small_league(tmp_path / "there", bots, budget=24)
    with (there / "league.toml").open("a") as config:
        config.write(f'[executor]\nbots = "shared"\nshared_folder = "{there.resolve()}"\n')
    local(here)
    with League.open(there) as lg:
        assert lg.config.executor.bots == "shared"
        assert run_league_dask(lg, client=client).played == 24
    assert fingerprint(here) == fingerprint(there)


def test_stopping_and_resuming_on_the_cluster(tmp_path: Path, client: Any) -> None:
    bots = entrants(tmp_path)
    whole = small_league(tmp_path / "whole", bots)
    parts = small_league(tmp_path / "parts", bots)
    local(whole)
    for _ in range(3):
        with League.open(parts) as lg:
            run_league_dask(lg, client=client, max_new=10)
    with League.open(parts) as lg:
        run_league_dask(lg, client=client)
    assert fingerprint(parts) == fingerprint(whole)
    audited(parts)


def test_the_cli_runs_a_league_on_a_scheduler(tmp_path: Path, client: Any) -> None:
    bots = entrants(tmp_path)
    here = small_league(tmp_path / "here", bots, budget=24)
    there = small_league(tmp_path / "there", bots, budget=24)
    local(here)
    address = client.scheduler.address
    runner = CliRunner()
    result = runner.invoke(
        main, ["league", "run", str(there), "--executor", "dask", "--scheduler", address, "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert "played 24 matches" in result.output
    assert fingerprint(here) == fingerprint(there)
    result = runner.invoke(main, ["audit", str(there)])
    assert result.exit_code == 0 and "all agree" in result.output


def test_the_config_can_choose_the_dask_executor(tmp_path: Path, client: Any) -> None:
    there = small_league(tmp_path / "there", entrants(tmp_path), budget=12)
    with (there / "league.toml").open("a") as config:
        config.write(f'[executor]\nkind = "dask"\nscheduler = "{client.scheduler.address}"\n')
    result = CliRunner().invoke(main, ["league", "run", str(there), "--quiet"])
    assert result.exit_code == 0, result.output
    with League.open(there) as lg:
        assert lg.store.played_count() == 12


def test_without_a_scheduler_a_local_dask_cluster_is_started_and_closed(tmp_path: Path) -> None:
    bots = entrants(tmp_path)
    here = small_league(tmp_path / "here", bots, budget=12)
    there = small_league(tmp_path / "there", bots, budget=12)
    local(here)
    with League.open(there) as lg:
        assert run_league_dask(lg, workers=2).played == 12
    assert fingerprint(here) == fingerprint(there)


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path: Path) -> None:
    there = small_league(tmp_path / "there", ["builtin:first", "builtin:random"], budget=12)
    (there / "league.toml").write_text(
        (there / "league.toml").read_text() + '[executor]\nkind = "dask"\n'
    )
    result = CliRunner().invoke(
        main, ["league", "run", str(there), "--scheduler", "tcp://127.0.0.1:9", "--quiet"]
    )
    assert result.exit_code == 1
    assert "cannot reach the Dask scheduler" in result.output


def test_a_batch_that_fails_on_a_worker_is_a_clear_error(tmp_path: Path, client: Any) -> None:
    there = small_league(tmp_path / "there", entrants(tmp_path), budget=12)
    with (there / "league.toml").open("a") as config:
        config.write(f'[executor]\nbots = "shared"\nshared_folder = "{tmp_path / "nowhere"}"\n')
    with League.open(there) as lg, pytest.raises(DaskError, match="a batch failed on the cluster"):
        run_league_dask(lg, client=client)
    with League.open(there) as lg:
        assert lg.store.played_count() == 0
    plugins = client.run(lambda dask_worker: sorted(dask_worker.plugins))
    assert not any(name.startswith("arena-") for names in plugins.values() for name in names)


def test_bundles_are_deterministic_checked_and_unpacked_once(tmp_path: Path) -> None:
    from arena.run.cluster_worker import BundleError, pack, unpack

    bot = write_bot(tmp_path / "src", "firsty")
    (bot / "bot.py").chmod(0o755)
    data = pack(bot, "bots/firsty-1")
    (bot / "bot.toml").touch()  # a new mtime changes nothing
    assert pack(bot, "bots/firsty-1") == data
    digest = hashlib.sha256(data).hexdigest()
    with pytest.raises(BundleError, match="damaged"):
        unpack(digest, data[:-1] + b"x", tmp_path / "cache")
    folder = unpack(digest, data, tmp_path / "cache")
    assert folder == tmp_path / "cache" / digest
    got = folder / "bots" / "firsty-1" / "bot.py"
    assert got.read_bytes() == (bot / "bot.py").read_bytes() and os.access(got, os.X_OK)
    inode = got.stat().st_ino
    assert unpack(digest, data, tmp_path / "cache") == folder  # verified, not unpacked again
    assert got.stat().st_ino == inode
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [digest]
    (bot / "bot.py").write_text("changed")
    assert pack(bot, "bots/firsty-1") != data


def test_arena_does_not_import_distributed_unless_asked() -> None:
    code = (
        "import sys, arena.cli, arena.run.local, arena.league.core, arena.league.audit;"
        "assert 'distributed' not in sys.modules, 'distributed was imported'"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def processing(dask_scheduler: Any) -> list[str]:
    return [str(t[0]) for t in dask_scheduler.transition_log if t[2] == "processing"]


def rerun(c: Any) -> list[str]:
    """The arena batches the scheduler sent to a worker more than once."""
    keys = [k for k in c.run_on_scheduler(processing) if k.startswith("arena-play-")]
    return sorted({k for k in keys if keys.count(k) > 1})


def kill_a_worker_mid_league(tmp_path: Path, budget: int, kills: int) -> None:
    bots = entrants(tmp_path)
    here = small_league(tmp_path / "here", bots, budget=budget)
    there = small_league(tmp_path / "there", bots, budget=budget)
    local(here)
    killed: list[str] = []
    every = budget // (kills + 1)
    with start_cluster() as cluster, distributed.Client(cluster, set_as_default=False) as c:

        def kill(record: dict[str, Any]) -> None:
            with League.open(there) as lg:
                stored = lg.store.played_count()
            if len(killed) >= kills or stored < every * (len(killed) + 1):
                return
            busy = [w for w, tasks in c.processing().items() if tasks]
            if not busy:
                return
            # kill -9 the worker process while it plays a batch (its nanny starts a new one).
            pid = c.run(os.getpid, workers=[busy[0]])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(busy[0])

        with League.open(there) as lg:
            report = run_league_dask(lg, client=c, on_record=kill)
        assert len(killed) == kills
        # The kills hit batches in progress: the scheduler sent those batches out again.
        assert len(rerun(c)) >= kills
    with League.open(there) as lg:
        assert lg.store.played_count() == report.played == budget
    assert fingerprint(here) == fingerprint(there)
    audited(there)


def test_a_worker_killed_mid_league_loses_and_doubles_nothing(tmp_path: Path) -> None:
    kill_a_worker_mid_league(tmp_path, budget=60, kills=1)


@pytest.mark.slow
def test_workers_killed_again_and_again(tmp_path: Path) -> None:
    kill_a_worker_mid_league(tmp_path, budget=240, kills=4)

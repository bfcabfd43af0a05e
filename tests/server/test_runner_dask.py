"""The runner plays its league on Dask when asked (``executor = "dask"``): the same matches,
results and ratings as on local workers (a Dask LocalCluster made for the run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.league.core import League
from arena.run.driver import LeaguePlanner
from arena.server.runner import Options, play
from tests.league.helpers import fingerprint
from tests.server.test_runner import small_league

pytest.importorskip("distributed")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.usefixtures("no_resource_tracker_left"),
]


def test_the_runner_plays_on_dask_as_on_local_workers(tmp_path: Path) -> None:
    played = {}
    for kind in ("local", "dask"):
        folder = small_league(tmp_path / kind, stop_rules=False)
        opts = Options(folder, folder / "site", 1, 2.0, 0, executor=kind)
        with League.open(folder) as lg:
            report = play(lg, opts, LeaguePlanner(lg))
        played[kind] = (report.played, fingerprint(folder))
    assert played["dask"][0] == played["local"][0] > 0
    assert played["dask"][1] == played["local"][1]

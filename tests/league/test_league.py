"""Whole leagues: determinism across worker counts, resume, faults, submissions."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.league.core import League, LeagueError
from arena.run.local import run_league
from tests.league.helpers import (
    ROOT,
    assert_audited,
    bot_processes,
    fingerprint,
    small_league,
    write_bot,
)

RANDOM_BOT = str(ROOT / "bots" / "random")


def entrants(tmp_path: Path) -> list[str]:
    return [
        RANDOM_BOT,
        "builtin:random",
        "builtin:first",
        str(write_bot(tmp_path / "src", "firsty")),
    ]


def play(folder: Path, workers: int, max_new: int | None = None) -> int:
    with League.open(folder) as lg:
        return run_league(lg, workers, progress=None, max_new=max_new).played


def test_the_same_league_whatever_the_number_of_workers(tmp_path: Path) -> None:
    one = small_league(tmp_path / "one", entrants(tmp_path))
    two = small_league(tmp_path / "two", entrants(tmp_path))
    assert play(one, 1) == 60
    assert play(two, 2) == 60
    a, b = fingerprint(one), fingerprint(two)
    assert a == b
    assert len(a["results"]) == 60
    assert_audited(one)
    assert_audited(two)
    assert {mode for _, mode, _, _ in a["batches"]} == {"uniform", "adaptive"}


def test_ratings_are_reproducible_from_the_stored_results(tmp_path: Path) -> None:
    folder = small_league(tmp_path / "l", entrants(tmp_path))
    play(folder, 2)
    with League.open(folder) as lg:
        assert lg.rate_from_scratch().rows() == lg.load_ratings().rows()
        assert lg.finished()
        assert lg.rated_batches() == lg.store.batch_count()


def test_stopping_and_resuming_gives_the_uninterrupted_league(tmp_path: Path) -> None:
    whole = small_league(tmp_path / "whole", entrants(tmp_path))
    parts = small_league(tmp_path / "parts", entrants(tmp_path))
    play(whole, 2)
    for _ in range(5):
        play(parts, 2, max_new=7)
    play(parts, 1)
    assert fingerprint(parts) == fingerprint(whole)
    assert play(parts, 2) == 0  # a finished league plays nothing more
    assert_audited(parts)


def kill_and_resume(tmp_path: Path, kills: int, seed: int, budget: int = 120) -> None:
    """Run the league as a subprocess, kill -9 it at random moments, rerun to the end.

    The moments are shares of the time the same league takes uninterrupted here (run the same
    way first), so that a kill lands before the league ends on a fast machine as on a slow one
    (at fixed moments of 0.3-1.2 s, a fast machine finished the league before the first)."""
    rng = random.Random(seed)
    bots = entrants(tmp_path)
    whole = small_league(tmp_path / "whole", bots, budget=budget)
    killed = small_league(tmp_path / "killed", bots, budget=budget)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    began = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "arena", "league", "run", str(whole), "--quiet"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    took = time.monotonic() - began
    command = [sys.executable, "-m", "arena", "league", "run", str(killed), "--quiet"]
    done_kills = 0
    scale = 1.0  # of the moments; halved when a run ended before its first kill
    for _ in range(kills * 4):
        log = tmp_path / "killed.log"
        with log.open("wb") as err:
            child = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err
            )
            time.sleep(took * scale * rng.uniform(0.2, 0.7))
        if child.poll() is not None:
            assert child.returncode == 0, log.read_text()
            if done_kills:
                break
            # This machine ran the whole league faster than it did alone (a busy neighbour
            # slowed the first run): start over, with the kills sooner.
            killed = small_league(tmp_path / f"killed-{scale}", bots, budget=budget)
            command[-2] = str(killed)
            scale /= 2
            continue
        child.send_signal(signal.SIGKILL)
        child.wait()
        done_kills += 1
        if done_kills == kills:
            break
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    assert done_kills >= 1  # the league may finish before every planned kill lands
    assert fingerprint(killed) == fingerprint(whole)
    assert_audited(killed)
    # The orphaned workers of the killed runs notice and take their bots with them.
    deadline = time.monotonic() + 15
    while bot_processes(killed) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert bot_processes(killed) == []


@pytest.mark.usefixtures("own_stage")  # bot_processes sees this test's bots only
def test_kill_9_at_random_moments_loses_and_doubles_nothing(tmp_path: Path) -> None:
    kill_and_resume(tmp_path, kills=2, seed=1)


@pytest.mark.slow
@pytest.mark.usefixtures("own_stage")  # bot_processes sees this test's bots only
def test_kill_9_many_times_loses_and_doubles_nothing(tmp_path: Path) -> None:
    kill_and_resume(tmp_path, kills=6, seed=2, budget=600)


def test_a_league_of_faulty_bots_finishes_with_every_fault_recorded(
    tmp_path: Path, process_bots: None
) -> None:
    src = tmp_path / "src"
    bots = [
        "builtin:random",
        "builtin:first",
        str(write_bot(src, "crasher", "crash")),
        str(write_bot(src, "sleeper", "hang")),
        str(write_bot(src, "cheat", "illegal")),
    ]
    folder = small_league(
        tmp_path / "l",
        bots,
        budget=72,
        decision=0.2,
        bank=0.3,
        suspend_min=6,
        suspend_rate=0.9,
    )
    play(folder, 2)
    with League.open(folder) as lg:
        assert lg.finished()
        summary = lg.summary()
        by_name = {e["name"]: e for e in summary["entrants"]}
        statuses = {
            name: {s for _, n, _, s, _ in lg.store.fault_list(10_000) if n == name}
            for name in by_name
        }
    assert statuses["crasher"] == {"crash"}
    assert statuses["sleeper"] == {"timeout"}
    assert statuses["cheat"] == {"illegal_action"}
    assert statuses["builtin-random"] == statuses["builtin-first"] == set()
    # the cheat faults in every match and is suspended, with the reason shown
    assert by_name["cheat"]["status"] == "suspended"
    assert "illegal_action" in by_name["cheat"]["reason"]
    assert by_name["builtin-first"]["status"] == "active"
    ranking = [r["name"] for r in summary["games"]["take5"]["ratings"]]
    assert ranking.index("cheat") > ranking.index("builtin-first")
    db = fingerprint(folder)
    crash = next(r for r in db["results"] if any(f["status"] == "crash" for f in r[4]["faults"]))
    fault = next(f for f in crash[4]["faults"] if f["status"] == "crash")
    assert "about to crash" in fault["stderr_tail"]


def test_bad_names_are_refused(tmp_path: Path) -> None:
    folder = small_league(tmp_path / "l", [])
    bot = write_bot(tmp_path / "src", "okname")
    with League.open(folder) as lg:
        for name in [
            "../x",
            "a/b",
            "<script>",
            "",
            "x" * 65,
            ".hidden",
            "a b",
            "é",
            "ok\n",
            "a\x00",
        ]:
            with pytest.raises(LeagueError, match="bad bot name"):
                lg.submit(str(bot), name=name, check=False)
        assert lg.entrants() == []


def test_broken_bots_fail_the_check_and_are_not_entered(tmp_path: Path, process_bots: None) -> None:
    folder = small_league(tmp_path / "l", [])
    src = tmp_path / "src"
    with League.open(folder) as lg:
        with pytest.raises(LeagueError, match="bad_hello"):
            lg.submit(str(write_bot(src, "mute", "bad_hello")))
        with pytest.raises(LeagueError, match="crash") as info:
            lg.submit(str(write_bot(src, "crasher", "crash")))
        assert "about to crash" in str(info.value)
        with pytest.raises(LeagueError, match="illegal_action"):
            lg.submit(str(write_bot(src, "cheat", "illegal")))
        with pytest.raises(LeagueError, match="no bot at"):
            lg.submit(str(src / "missing"))
        with pytest.raises(LeagueError, match="none of the league's games"):
            lg.submit(str(write_bot(src, "other", games=("phase10",))))
        assert lg.entrants() == []
        assert list((folder / "bots").iterdir()) == []
        entered = lg.submit(str(write_bot(src, "good")))
        assert entered.checked == ("take5",)


def test_resubmission_makes_a_new_version_and_keeps_the_old_results(tmp_path: Path) -> None:
    src = tmp_path / "src"
    bot = write_bot(src, "evolver")
    folder = small_league(tmp_path / "l", ["builtin:random", "builtin:first", str(bot)], budget=24)
    play(folder, 2)
    with League.open(folder) as lg:
        with pytest.raises(LeagueError, match="already submitted"):
            lg.submit(str(bot), check=False)
        (bot / "notes.txt").write_text("a change")
        again = lg.submit(str(bot), check=False)
        assert again.replaced is not None and again.replaced.name == "evolver"
        assert again.entrant.version != again.replaced.version
        assert again.entrant.previous == again.replaced.id
        other = write_bot(tmp_path / "elsewhere", "evolver", author="someone else")
        with pytest.raises(LeagueError, match="taken by another author"):
            lg.submit(str(other), check=False)
        statuses = {e.id: e.status for e in lg.entrants()}
        assert statuses[again.replaced.id] == "replaced"
        old_results = lg.store.fault_counts(10**6)[again.replaced.id][0]
    assert old_results > 0
    with League.open(folder) as lg:
        lg.config = lg.config.__class__(
            **{**lg.config.__dict__, "schedule": lg.config.schedule.__class__(max_matches=48)}
        )
        run_league(lg, 2, progress=None)
        counts = lg.store.fault_counts(10**6)
        assert counts[again.replaced.id][0] == old_results  # the old version played no more
        assert counts[again.entrant.id][0] > 0
        names = [r["name"] for r in lg.summary()["games"]["take5"]["ratings"]]
        assert names.count("evolver") == 2


def test_a_withdrawn_bot_plays_no_new_matches(tmp_path: Path) -> None:
    folder = small_league(tmp_path / "l", entrants(tmp_path), budget=60)
    play(folder, 2, max_new=10)
    with League.open(folder) as lg:
        played_before = lg.store.fault_counts(10**6)
        firsty = next(e for e in lg.entrants() if e.name == "firsty")
        _, cancelled = lg.withdraw("firsty")
        assert cancelled > 0
        with pytest.raises(LeagueError, match="no active entrant"):
            lg.withdraw("firsty")
    play(folder, 2)
    with League.open(folder) as lg:
        after = lg.store.fault_counts(10**6)
        assert after[firsty.id][0] == played_before[firsty.id][0]
        assert lg.finished()
        assert next(e for e in lg.entrants() if e.id == firsty.id).status == "withdrawn"
        assert any(r["name"] == "firsty" for r in lg.summary()["games"]["take5"]["ratings"])


def test_fresh_processes_start_a_bot_per_seat_and_change_no_result(tmp_path: Path) -> None:
    bots = [RANDOM_BOT, "builtin:first", "builtin:random"]
    kept = small_league(tmp_path / "kept", bots, budget=24)
    fresh = small_league(tmp_path / "fresh", bots, budget=24)
    text = (
        (fresh / "league.toml")
        .read_text()
        .replace("[schedule]\n", "[schedule]\nfresh_processes = true\n")
    )
    (fresh / "league.toml").write_text(text)
    with League.open(kept) as lg:
        persistent = run_league(lg, 2, progress=None).processes_started
    with League.open(fresh) as lg:
        assert lg.config.schedule.fresh_processes
        started = run_league(lg, 2, progress=None).processes_started
        seats = sum(
            1
            for p in lg.store.outcomes()
            for b in p.bots
            if b == 1  # entrant 1 is bots/random
        )
    assert persistent <= 2
    assert started == seats
    assert fingerprint(kept) == fingerprint(fresh)


def test_a_single_file_bot_is_copied_and_run_from_the_league(tmp_path: Path) -> None:
    folder = small_league(tmp_path / "l", ["builtin:first"], budget=12)
    source = write_bot(tmp_path / "src", "solo") / "bot.py"
    single = tmp_path / "lonely.py"
    single.write_bytes(source.read_bytes())
    with League.open(folder) as lg:
        entered = lg.submit(str(single))
        assert entered.entrant.name == "lonely"
        assert entered.entrant.games == ("take5",)
        copied = folder / entered.entrant.source
        assert copied.is_file() and copied.read_bytes() == single.read_bytes()
    single.unlink()  # the league runs its own copy
    assert play(folder, 1) == 12


def test_solo_tables_give_a_score_table_and_no_ratings(tmp_path: Path) -> None:
    from tests.league.helpers import write_config

    folder = tmp_path / "l"
    write_config(
        folder,
        """\
        seed = 3
        [games.ten]
        seats = [1, 2]
        [schedule]
        max_matches = 16
        min_batch_matches = 4
        """,
    )
    with League.open(folder) as lg:
        for bot in ("builtin:random", "builtin:first"):
            lg.submit(bot, check=False)
    play(folder, 2)
    with League.open(folder) as lg:
        summary = lg.summary()
        solo = summary["games"]["ten"]["solo"]
        assert {r["name"] for r in solo} == {"builtin-random", "builtin-first"}
        assert all(r["matches"] >= 1 for r in solo)
        means = [r["mean_score"] for r in solo]
        assert means == sorted(means, reverse=True)  # higher is better by default
        rated = summary["games"]["ten"]["ratings"]
        # ratings come from the two-seat tables only: a bot's matches there
        outcomes = lg.store.outcomes()
        two = sum(1 for o in outcomes if len(o.bots) == 2)
        assert two > 0 and sum(r["matches"] for r in rated) == 2 * two


def test_workers_killed_mid_run_stop_the_run_and_the_next_run_completes(tmp_path: Path) -> None:
    from arena.run.local import WorkerLost, _children

    bots = entrants(tmp_path)
    whole = small_league(tmp_path / "whole", bots)
    broken = small_league(tmp_path / "broken", bots)
    play(whole, 2)
    killed: list[int] = []

    def kill_a_worker(record: object) -> None:
        # Kill both workers: the one that just sent this record may be between chunks, but
        # with chunks still in flight the other is in the middle of one, which is lost.
        if not killed:
            for worker in _children():
                killed.append(worker)
                os.kill(worker, signal.SIGKILL)

    with League.open(broken) as lg, pytest.raises(WorkerLost):
        run_league(lg, 2, progress=None, on_record=kill_a_worker)
    play(broken, 2)
    assert fingerprint(broken) == fingerprint(whole)


def test_a_chunk_sent_to_a_pool_already_broken_is_a_lost_worker(tmp_path: Path) -> None:
    """The pool may notice a dead worker before the driver sends the next chunk: sending then
    is the same lost worker as taking a lost chunk, not an executor error."""
    from concurrent.futures.process import BrokenProcessPool

    from arena.league.store import Planned
    from arena.run.local import LocalBackend, WorkerLost

    folder = small_league(tmp_path / "l", ["builtin:random", "builtin:first"])
    with League.open(folder) as lg:
        backend = LocalBackend(lg, 2)
        try:
            probe = backend.pools[0].executor.submit(time.sleep, 30)
            for process in backend.pools[0].processes:
                os.kill(process.pid, signal.SIGKILL)
            with pytest.raises(BrokenProcessPool):
                probe.result(timeout=30)  # the pool now knows it is broken
            bots = tuple(e.id for e in lg.entrants())
            chunk = [Planned("m-1", 0, 0, "take5", 0, 0, 1, {}, bots)]
            with pytest.raises(WorkerLost, match="run again"):
                backend.submit(chunk, 0)
        finally:
            backend.cancel()


def test_symbolic_links_in_a_bot_folder_are_refused(tmp_path: Path) -> None:
    folder = small_league(tmp_path / "l", [])
    bot = write_bot(tmp_path / "src", "linky")
    (bot / "secret").symlink_to("/etc/hostname")
    with League.open(folder) as lg, pytest.raises(LeagueError, match="symbolic link"):
        lg.submit(str(bot), check=False)


@pytest.mark.parametrize("rule", ["stop_sigma = 4.0", "stop_separated = 1"])
def test_a_stopping_rule_ends_the_league_before_its_budget(tmp_path: Path, rule: str) -> None:
    bots = [str(ROOT / "bots" / "heuristic"), "builtin:random", "builtin:first"]
    folder = small_league(tmp_path / "l", bots, budget=600)
    text = (folder / "league.toml").read_text().replace("[schedule]\n", f"[schedule]\n{rule}\n")
    (folder / "league.toml").write_text(text)
    played = play(folder, 2)
    with League.open(folder) as lg:
        assert lg.finished()
        assert 0 < played == lg.store.planned_matches() < 600
        standings = lg.standings()[0].rated
        if rule.startswith("stop_sigma"):
            # the rule is checked on the ratings a batch is planned from (two batches back)
            assert max(s.sigma for s in standings) < 4.0
        else:
            assert lg.entrants()[0].id == standings[0].bot  # the heuristic bot on top

"""Shared helpers of the league tests: leagues in tmp dirs, tiny fault bots, fingerprints."""

from __future__ import annotations

import os
import sqlite3
import textwrap
from pathlib import Path
from typing import Any

from arena.league.audit import audit
from arena.league.core import League
from arena.league.store import unpack_record

ROOT = Path(__file__).resolve().parents[2]

FAULT_BOT = """\
import json, sys, time
MODE = {mode!r}
NAME = {name!r}
n = 0
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        if MODE == "bad_hello":
            print("not json", flush=True)
            continue
        reply = {{"name": NAME, "version": "1"}}
    elif t == "act":
        n += 1
        if MODE == "crash" and n % 7 == 3:
            sys.stderr.write("about to crash\\n")
            sys.exit(3)
        if MODE == "hang" and n % 7 == 3:
            time.sleep(30)
        if MODE == "illegal":
            reply = {{"id": m["id"], "index": 10**6}}
        else:
            reply = {{"id": m["id"], "index": 0}}
    elif t == "bye":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
"""


def write_bot(
    where: Path,
    name: str,
    mode: str = "first",
    games: tuple[str, ...] = ("take5",),
    author: str = "tests",
) -> Path:
    """A bot folder: ``mode`` is first (always index 0), crash, hang, illegal or bad_hello."""
    folder = where / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(FAULT_BOT.format(mode=mode, name=name), encoding="utf-8")
    (folder / "bot.toml").write_text(
        textwrap.dedent(
            f"""\
            name = "{name}"
            author = "{author}"
            version = "1"
            command = ["python3", "bot.py"]
            games = {list(games)!r}
            """
        ).replace("'", '"'),
        encoding="utf-8",
    )
    return folder


def write_config(folder: Path, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bots").mkdir(exist_ok=True)
    (folder / "league.toml").write_text(textwrap.dedent(text), encoding="utf-8")


SMALL = """\
seed = 7
workers = 2
[games.take5]
seats = [3]
[schedule]
max_matches = {budget}
min_batch_matches = {batch}
warmup_batches = 2
adaptive = true
chunk = 2
[limits]
decision = {decision}
bank = {bank}
startup = 10.0
[entrants]
suspend_min_matches = {suspend_min}
suspend_fault_rate = {suspend_rate}
"""


def small_league(
    folder: Path,
    bots: list[str],
    budget: int = 60,
    batch: int = 12,
    decision: float = 1.0,
    bank: float = 5.0,
    suspend_min: int = 10,
    suspend_rate: float = 0.5,
    check: bool = False,
) -> Path:
    write_config(
        folder,
        SMALL.format(
            budget=budget,
            batch=batch,
            decision=decision,
            bank=bank,
            suspend_min=suspend_min,
            suspend_rate=suspend_rate,
        ),
    )
    with League.open(folder) as lg:
        for bot in bots:
            lg.submit(bot, check=check)
    return folder


def assert_audited(folder: Path) -> None:
    """The league passes ``arena audit``: every stored match replays to its record."""
    with League.open(folder) as lg:
        report = audit(lg)
    assert report.matches > 0
    assert report.ok, "\n".join(str(p) for p in report.problems)


def fingerprint(folder: Path) -> dict[str, Any]:
    """Everything a league decided, without timings: schedule, results, ratings, statuses."""
    db = sqlite3.connect(folder / "league.db")
    try:
        schedule = db.execute(
            "SELECT match_id, batch, ordinal, game, tab, rotation, seed, options, bots, cancelled"
            " FROM schedule ORDER BY batch, ordinal"
        ).fetchall()
        results = []
        for match_id, ranks, scores, faults, record in db.execute(
            "SELECT match_id, ranks, scores, faults, record FROM results ORDER BY match_id"
        ):
            data = unpack_record(record)
            for key in ("seconds", "decisions", "usage"):
                data.pop(key, None)
            results.append((match_id, ranks, scores, faults, data))
        ratings = db.execute("SELECT * FROM ratings ORDER BY game, bot").fetchall()
        bots = db.execute(
            "SELECT id, name, version, status, reason FROM bots ORDER BY id"
        ).fetchall()
        batches = db.execute("SELECT * FROM batches ORDER BY batch").fetchall()
        meta = db.execute("SELECT * FROM meta ORDER BY key").fetchall()
        faults = db.execute(
            "SELECT match_id, seat, bot, step, status FROM faults ORDER BY match_id, seat"
        ).fetchall()
    finally:
        db.close()
    return {
        "schedule": schedule,
        "results": results,
        "ratings": ratings,
        "bots": bots,
        "batches": batches,
        "meta": meta,
        "faults": faults,
    }


def bot_processes(folder: Path) -> list[int]:
    """Processes whose working directory is inside ``folder`` (the bots run in their folder),
    or inside a copy of one of its bots staged by the ``rlimits`` sandbox (a private league's
    bots run from ``<stage root>/run/bot-*/<bot folder name>``)."""
    roots = [str(folder.resolve())]
    bots = folder / "bots"
    if bots.is_dir():
        staged = str(
            Path(os.environ.get("ARENA_STAGE_DIR") or f"/var/tmp/arena-stage-{os.geteuid()}")
        )
        names = {entry.name for entry in bots.iterdir()}
        roots += [f"{staged}/run/"]
    else:
        names = set()
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cwd = os.readlink(f"/proc/{pid}/cwd")
            except OSError:
                continue
            if cwd.startswith(roots[0]) or (
                len(roots) > 1 and cwd.startswith(roots[1]) and Path(cwd).name in names
            ):
                found.append(int(pid))
    return found


def descendants(pid: int) -> set[int]:
    """The processes descended from ``pid`` (children, their children, ...), now."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found

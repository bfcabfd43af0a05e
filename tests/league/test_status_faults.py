"""``league status``: a game's table counts the faults of that game only (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.league.config import GameConfig, default_config
from arena.league.core import League
from arena.league.store import Planned


def record(match_id: str, fault_seat: int | None) -> dict[str, object]:
    faults = (
        []
        if fault_seat is None
        else [
            {
                "seat": fault_seat,
                "step": 3,
                "status": "crash",
                "message": "the process exited",
                "stderr_tail": "",
            }
        ]
    )
    return {
        "match_id": match_id,
        "faults": faults,
        "ranks": [1, 2],
        "result": {"scores": [10, 5]},
        "seconds": 0.1,
    }


def test_a_games_faults_column_counts_that_game_only(tmp_path: Path) -> None:
    folder = tmp_path / "lg"
    games = (GameConfig("take5", (2,), {}), GameConfig("ten", (2,), {}))
    League.init(folder, default_config().__class__(games=games))
    with League.open(folder) as lg:
        store = lg.store
        a = store.add_entrant("a", "v" * 12, "me", "1", "builtin:random", ["take5", "ten"], None)
        b = store.add_entrant("b", "w" * 12, "me", "1", "builtin:first", ["take5", "ten"], None)
        planned = [
            Planned(f"m{k}", 0, k, game, k, 0, k, {}, (a, b))
            for k, game in enumerate(["take5", "take5", "ten", "ten", "ten"])
        ]
        with store.transaction():
            store.add_batch(0, "uniform", 0, planned)
        # a faults in two ten matches, b in one take5 match
        for m, seat in zip(planned, [1, None, 0, 0, None], strict=True):
            assert store.record_match(record(m.match_id, seat), m.bots)
        with store.transaction():
            store.save_ratings(
                [(g, bot, 25.0, 8.0, 2, 2) for g in ("take5", "ten") for bot in (a, b)]
            )
            store.set_meta("rated_batches", "1")
        summary = lg.summary()
    tables = summary["games"]
    assert isinstance(tables, dict)
    faults = {
        game: {row["name"]: row["faulted_matches"] for row in tables[game]["ratings"]}
        for game in ("take5", "ten")
    }
    assert faults == {"take5": {"a": 0, "b": 1}, "ten": {"a": 2, "b": 0}}
    entrants = {e["name"]: e["faulted_matches"] for e in summary["entrants"]}  # type: ignore[union-attr, index]
    assert entrants == {"a": 2, "b": 1}

    result = CliRunner().invoke(main, ["league", "status", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["games"]["ten"]["ratings"][0]["faulted_matches"] in (0, 2)
    text = CliRunner().invoke(main, ["league", "status", str(folder)]).output
    assert faults_column(text, "take5") == {"a": "0", "b": "1"}
    assert faults_column(text, "ten") == {"a": "2", "b": "0"}


def faults_column(text: str, game: str) -> dict[str, str]:
    """The faults column of ``game``'s table in the status text, by bot."""
    lines = text.splitlines()
    start = lines.index(f"{game}: TrueSkill, ranked by mu - 3*sigma") + 2
    rows = []
    for line in lines[start:]:
        if not line.strip() or not line.split()[0].isdigit():
            break  # the end of the table, or its note on tiers
        rows.append(line.split())
    return {row[2]: row[-2] for row in rows}  # rank, tier, bot, ..., faults, status

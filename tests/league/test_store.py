"""The store: migrations from version 1 up, one row per match whatever is re-committed."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from arena.league.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    BatchMode,
    BotFault,
    EntrantStatus,
    FaultCount,
    FaultLine,
    FaultRow,
    FaultTally,
    Planned,
    Store,
    StoreError,
    StoreReader,
    migrate,
    pack_record,
)


def record(match_id: str, faults: list[dict[str, object]] | None = None) -> dict[str, object]:
    return {
        "match_id": match_id,
        "game": "take5",
        "seed": 5,
        "options": {},
        "seats": [{"bot": "a"}, {"bot": "b"}],
        "actions": [[0, 1], [1, 2]],
        "fallback_steps": [],
        "debug": [],
        "faults": faults or [],
        "result": {"scores": [3, 1], "ranks": [2, 1], "details": {}},
        "ranks": [2, 1],
        "decisions": [],
        "seconds": 0.01,
    }


def planned(match_id: str, ordinal: int, bots: tuple[int, ...] = (1, 2)) -> Planned:
    return Planned(match_id, 0, ordinal, "take5", 0, ordinal, 5, {}, bots)


def fill(store: Store) -> None:
    a = store.add_entrant("a", "h1", "me", "1", "bots/a", ["take5"], None)
    b = store.add_entrant("b", "h2", "me", "1", "bots/b", ["take5"], None)
    with store.transaction():
        store.add_batch(0, "uniform", 0, [planned("m0", 0, (a, b)), planned("m1", 1, (b, a))])


def test_a_new_store_is_at_the_latest_version(tmp_path: Path) -> None:
    with Store.open(tmp_path / "l.db") as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_migrating_a_version_1_store_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    with Store.open(path, target=1) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == 1
        fill(store)
        store.db.execute(
            "INSERT INTO ratings(game, bot, mu, sigma, sets) VALUES ('take5', 1, 30.0, 2.0, 4)"
        )
        # Version 1 has no ratings.matches column.
        with pytest.raises(sqlite3.OperationalError):
            store.db.execute("SELECT matches FROM ratings")
    with Store.open(path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.load_ratings() == [("take5", 1, 30.0, 2.0, 4, 0)]
        assert [e.name for e in store.entrants()] == ["a", "b"]
        assert [p.match_id for p in store.unplayed()] == ["m0", "m1"]
        assert store.record_match(record("m0"), (1, 2))


def test_every_step_runs_from_every_version(tmp_path: Path) -> None:
    for start in range(len(MIGRATIONS) + 1):
        db = sqlite3.connect(tmp_path / f"v{start}.db", isolation_level=None)
        assert migrate(db, start) == start
        assert migrate(db) == SCHEMA_VERSION
        db.close()


def test_a_store_from_a_newer_arena_is_refused(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "l.db")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="schema version"):
        Store.open(tmp_path / "l.db")


def test_a_failed_migration_step_leaves_the_version_unchanged(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "l.db", isolation_level=None)
    migrate(db, 1)
    db.execute("CREATE INDEX faults_by_bot ON faults(bot)")  # makes step 2 fail
    with pytest.raises(sqlite3.OperationalError):
        migrate(db)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    assert "matches" not in [r[1] for r in db.execute("PRAGMA table_info(ratings)")]
    db.close()


def test_recommitting_a_match_writes_nothing(tmp_path: Path) -> None:
    fault = {"seat": 1, "step": 0, "status": "crash", "message": "gone", "stderr_tail": "x"}
    with Store.open(tmp_path / "l.db") as store:
        fill(store)
        assert store.record_match(record("m0", [fault]), (1, 2))
        assert not store.record_match(record("m0", [fault]), (1, 2))
        assert store.db.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 1
        assert store.db.execute("SELECT COUNT(*) FROM faults").fetchone()[0] == 1
        assert [p.match_id for p in store.unplayed()] == ["m1"] and store.any_unplayed()
        assert store.fault_counts(0) == {1: (1, 0, ""), 2: (1, 1, "crash: gone")}


def test_a_chunk_of_records_commits_once_all_or_none(tmp_path: Path) -> None:
    """record_chunk: one COMMIT for the chunk; a failing record takes the whole chunk back (it
    is played again on resume); an already stored record is skipped, the others kept."""
    with Store.open(tmp_path / "l.db") as store:
        fill(store)
        with pytest.raises(sqlite3.IntegrityError):
            store.record_chunk(
                [(pack_record(record("m0")), (1, 2)), (pack_record(record("nope")), (1, 2))]
            )
        assert store.played_count() == 0
        assert store.record_chunk([(pack_record(record("m0")), (1, 2))]) == [True]
        statements: list[str] = []
        store.db.set_trace_callback(statements.append)
        chunk = [(pack_record(record("m0")), (1, 2)), (pack_record(record("m1")), (2, 1))]
        assert store.record_chunk(chunk) == [False, True]
        store.db.set_trace_callback(None)
        assert statements.count("COMMIT") == 1
        assert store.played_count() == 2
        assert store.unplayed() == [] and not store.any_unplayed()


def test_a_match_id_outside_the_schedule_is_refused(tmp_path: Path) -> None:
    with Store.open(tmp_path / "l.db") as store:
        fill(store)
        with pytest.raises(sqlite3.IntegrityError):
            store.record_match(record("nope"), (1, 2))
        assert store.played_count() == 0


def test_a_failed_transaction_is_rolled_back(tmp_path: Path) -> None:
    with Store.open(tmp_path / "l.db") as store:
        fill(store)
        with pytest.raises(RuntimeError), store.transaction():
            store.set_meta("rated_batches", "5")
            raise RuntimeError
        assert store.get_meta("rated_batches") is None


def test_the_reader_reads_what_the_store_wrote_and_cannot_write(tmp_path: Path) -> None:
    fault = {"seat": 1, "step": 0, "status": "crash", "message": "gone", "stderr_tail": "x"}
    path = tmp_path / "l.db"
    with Store.open(path) as store:
        fill(store)
        store.record_match(record("m1", [fault]), (2, 1))
        store.record_match(record("m0"), (1, 2))
    with StoreReader.open(path) as reader:
        assert not hasattr(reader, "record_match")
        assert reader.last_row() == 2
        assert [m.match_id for m in reader.results_after(0)] == ["m1", "m0"]  # as stored
        assert [m.match_id for m in reader.results_after(1)] == ["m0"]
        assert reader.faults_of(1) == [BotFault("m1", "take5", 1, 0, "crash", "gone", "x")]
        assert reader.faults_of(2) == []
        assert reader.fault_kinds(1) == [FaultTally(status="crash", faults=1)]
        stored = list(reader.stored_results())
        assert [s.match_id for s in stored] == ["m0", "m1"]  # in schedule order
        assert stored[1].fault_rows == (
            FaultRow(seat=1, bot=1, step=0, status="crash", message="gone"),
        )
        assert stored[1].record == record("m1", [fault])
        counts = reader.fault_counts(0)
        assert counts[1] == FaultCount(played=2, faulted=1, example="crash: gone")
        assert counts[2].faulted == 0 and counts[2].example == ""
        assert reader.fault_list() == [FaultLine("m1", "a", 0, "crash", "gone")]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            reader.db.execute("DELETE FROM results")


def test_statuses_and_modes_are_stored_as_the_schema_spells_them(tmp_path: Path) -> None:
    listed = re.search(r"status TEXT .*-- (.*)", MIGRATIONS[0])
    assert listed is not None
    assert set(listed.group(1).split(" | ")) == {s.value for s in EntrantStatus}
    assert {m.value for m in BatchMode} == {"uniform", "adaptive"}
    with Store.open(tmp_path / "l.db") as store:
        fill(store)
        store.add_entrant("a", "h3", "me", "2", "bots/a2", ["take5"], 1)
        store.set_status(2, EntrantStatus.SUSPENDED, "faults")
        rows = store.db.execute("SELECT id, status FROM bots ORDER BY id").fetchall()
        assert rows == [(1, "replaced"), (2, "suspended"), (3, "active")]
        assert [e.status for e in store.entrants()] == [
            EntrantStatus.REPLACED,
            EntrantStatus.SUSPENDED,
            EntrantStatus.ACTIVE,
        ]
        assert all(type(e.status) is EntrantStatus for e in store.entrants())
        assert store.db.execute("SELECT mode FROM batches").fetchall() == [("uniform",)]

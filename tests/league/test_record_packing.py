"""Records are stored compressed, read back whole; records of older leagues (plain JSON) still
read; the parent reads only a record's small head."""

from __future__ import annotations

import zlib
from pathlib import Path

import orjson

from arena.league.store import Store, pack_record, unpack_record
from tests.league.test_store import fill, record


def test_a_record_round_trips_through_its_packing() -> None:
    data = record(
        "m0", [{"seat": 1, "step": 2, "status": "crash", "message": "x", "stderr_tail": "y"}]
    )
    packed = pack_record(data)
    assert unpack_record(packed.body) == data
    assert orjson.loads(packed.head) == {
        "match_id": "m0",
        "ranks": [2, 1],
        "scores": [3, 1],
        "faults": data["faults"],
        "seconds": 0.01,
    }
    assert zlib.decompress(packed.body) == orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def test_stored_records_are_compressed_and_older_plain_ones_still_read(tmp_path: Path) -> None:
    with Store.open(tmp_path / "l.db") as store:
        fill(store)
        big = record("m0")
        big["debug"] = [[0, 0, "thinking " * 200]]  # repetitive, as records are
        assert store.record_match(big, (1, 2))
        stored = store.db.execute("SELECT record FROM results WHERE match_id = 'm0'").fetchone()[0]
        assert isinstance(stored, bytes) and len(stored) * 4 < len(orjson.dumps(big))
        # a league written before compression: the record as JSON text
        old = record("m1")
        assert store.record_match(old, (2, 1))
        store.db.execute(
            "UPDATE results SET record = ? WHERE match_id = 'm1'", (orjson.dumps(old).decode(),)
        )
        assert [r["match_id"] for r in store.records()] == ["m0", "m1"]
        assert [r["debug"] for r in store.records()] == [big["debug"], []]
        assert [s.record for s in store.stored_results()] == [big, old]

"""Hostile values from real bot processes (issue 13): each is a typed fault or a safe value.

Deep nesting (orjson reads 1,024 levels but writes only 255), numbers beyond 64 bits, NaN, lone
surrogates, duplicate keys, odd hellos, a closed output: the match goes on, its record is plain
JSON that the store writes and reads back, ``arena play`` exits normally, and a league with such
a bot runs and resumes.
"""

from __future__ import annotations

import time
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.league.core import League
from arena.match import MatchRecord, MatchSpec, run_match
from arena.run.local import run_league
from arena.runtime.botproc import BotConnection, Fault, FaultKind, RunLimits, StderrTail, TimeLimits
from arena.runtime.manifest import BotSpec, load_bot
from arena.runtime.pool import BotPool
from arena.runtime.sandbox import Limits
from tests.league.helpers import assert_audited, small_league

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("process_bots")]

ROOT = Path(__file__).resolve().parents[2]
TEST_BOTS = ROOT / "tests" / "bots"
HOSTILE = TEST_BOTS / "hostile.py"
LIMITS = RunLimits(time=TimeLimits(decision=0.5, bank=5.0, startup=10.0, grace=0.2))
ONE_ROUND = {"max_rounds": 1}


def bot(name: str) -> BotSpec:
    return load_bot(str(TEST_BOTS / name))


def play(pool: BotPool, match_id: str, *bots: BotSpec) -> MatchRecord:
    return run_match(MatchSpec(match_id, "take5", 1, bots, ONE_ROUND), pool)


def round_trip(record: MatchRecord) -> None:
    """The record goes through the store's encoding and back unchanged, and replays."""
    text = orjson.dumps(record.to_json(), option=orjson.OPT_SORT_KEYS)
    again = MatchRecord.from_json(orjson.loads(text))
    assert orjson.dumps(again.to_json(), option=orjson.OPT_SORT_KEYS) == text
    assert record.replay().play().is_over()


# mode of hostile.py -> the fault kinds it may cause (None: no fault) and a part of the message.
# Where the codec decides (a number beyond 64 bits read as a float, or refused), either is fine.
REPLY_CASES: list[tuple[str, set[FaultKind | None], str]] = [
    ("deep_action", {FaultKind.BAD_REPLY}, "the action is nested deeper than 32 levels"),
    ("deeper_action", {FaultKind.BAD_REPLY}, "nested deeper than 32 levels"),
    ("action_33", {FaultKind.BAD_REPLY}, "nested deeper than 32 levels"),
    ("deep_debug", {FaultKind.BAD_REPLY}, "the debug note is nested deeper than 32 levels"),
    ("deep_id", {FaultKind.WRONG_ID}, "reply id a list nested deeper than 32 levels"),
    ("big_index", {FaultKind.BAD_REPLY, FaultKind.INVALID_JSON}, ""),
    ("big_action", {FaultKind.ILLEGAL_ACTION, FaultKind.INVALID_JSON}, ""),
    ("big_id", {FaultKind.WRONG_ID, FaultKind.INVALID_JSON}, ""),
    ("nan", {FaultKind.INVALID_JSON}, ""),
    ("infinity", {FaultKind.INVALID_JSON, FaultKind.ILLEGAL_ACTION}, ""),
    ("surrogate_debug", {FaultKind.INVALID_JSON, None}, ""),
    ("surrogate_action", {FaultKind.INVALID_JSON, FaultKind.ILLEGAL_ACTION}, ""),
    ("deep_extra", {None}, ""),
    ("debug_object", {None}, ""),
    ("duplicate_keys", {None}, ""),
    ("nul_debug", {None}, ""),
]


@pytest.mark.parametrize(("mode", "kinds", "message"), REPLY_CASES)
def test_a_hostile_reply_is_a_typed_fault_or_a_safe_value(
    mode: str, kinds: set[FaultKind | None], message: str
) -> None:
    hostile = load_bot(str(HOSTILE))
    with BotPool(LIMITS) as pool:
        record = play(pool, f"{mode}:1", hostile, load_bot("builtin:first"))
    assert all(f.seat == 0 for f in record.faults)
    kind = record.faults[0].kind if record.faults else None
    assert kind in kinds, record.faults
    if record.faults:
        fault = record.faults[0]
        assert message in fault.message and len(fault.message) < 1000, fault.message
        assert fault.step == 0 and record.ranks == (2, 1)
    else:
        assert record.decisions[0]["count"] == 10  # one round: ten cards, all answered
    round_trip(record)


def test_safe_values_are_kept_as_documented() -> None:
    hostile = load_bot(str(HOSTILE))
    with BotPool(LIMITS) as pool:
        notes = [
            play(pool, f"{mode}:1", hostile, load_bot("builtin:first")).debug[0][2]
            for mode in ("debug_object", "nul_debug")
        ]
        duplicated = play(pool, "duplicate_keys:1", hostile, load_bot("builtin:first"))
    # A debug note that is no string is kept as its JSON text; control characters stay
    # (the record is JSON, and pages escape them); the last of duplicate keys counts.
    assert notes == ['{"a":"x","b":[1,2]}', "a\x00b\x1b[2J"]
    assert not duplicated.faults


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("hello_deep.py", "'version' must be a string or a number, not list"),
        ("hello_author.py", "'author' must be a string or a number, not dict"),
        ("hello_surrogate.py", ""),
    ],
)
def test_a_hostile_hello_is_a_bad_hello_and_the_match_goes_on(name: str, message: str) -> None:
    with BotPool(LIMITS) as pool:
        started = pool.get(bot(name))
        assert isinstance(started, Fault) and started.kind is FaultKind.BAD_HELLO, started
        assert message in started.message and len(started.message) < 1000
        record = play(pool, "check-1", bot(name), load_bot("builtin:first"))
    (fault,) = record.faults
    assert fault.kind is FaultKind.BAD_HELLO and fault.step == 0
    round_trip(record)


def test_hello_fields_are_checked_strings_and_other_keys_are_dropped() -> None:
    extra = bot("hello_extra.py")
    with BotPool(LIMITS) as pool:
        connection = pool.get(extra)
        assert isinstance(connection, BotConnection), connection
        record = play(pool, "check-1", extra, load_bot("builtin:first"))
    name = "extra" + "n" * 95
    assert connection.hello == {"name": name, "version": "7", "author": "a" * 100}
    assert (connection.name, connection.version) == (name, "7")
    assert not record.faults
    assert record.seats[0]["said"] == name and record.seats[0]["version"] == "7"
    round_trip(record)


@pytest.mark.parametrize("method", ["none", "auto"])
def test_a_bot_that_closes_its_output_and_lives_on_is_a_crash_at_once(method: str) -> None:
    """Not a timeout after the whole bank: under a sandbox tool, which keeps a copy of the
    pipe, the end of the output is seen in /proc."""
    limits = RunLimits(
        time=TimeLimits(decision=0.5, bank=30.0, startup=10.0, grace=0.2),
        sandbox=Limits(method=method),  # type: ignore[arg-type]
    )
    with BotPool(limits) as pool:
        record = play(pool, "close_stdout:1", load_bot(str(HOSTILE)), load_bot("builtin:first"))
    (fault,) = record.faults
    assert fault.kind is FaultKind.CRASH, fault
    assert "closed its output" in fault.message
    assert record.decisions[0]["count"] == 0


def run_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def test_arena_play_with_a_hostile_bot_exits_normally() -> None:
    fast = ["--decision-time", "0.5", "--time-bank", "5"]
    code, out = run_cli("play", "take5", str(HOSTILE), "builtin:first", "--games", "2", *fast)
    assert code == 0, out
    assert out.count("bad_reply") == 2 and "nested deeper than 32 levels" in out
    code, out = run_cli("play", "take5", str(HOSTILE), "builtin:first", "--json", *fast)
    assert code == 0, out
    (record,) = [orjson.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [f["status"] for f in record["faults"]] == ["bad_reply"]


def test_a_league_with_a_hostile_bot_runs_and_resumes(tmp_path: Path) -> None:
    """The bot passes the submission check (it behaves in check matches) and sends deep
    actions in league matches: each is a fault, and the league plays on to the end."""
    folder = small_league(
        tmp_path / "l",
        [str(HOSTILE), "builtin:random", "builtin:first"],
        budget=12,
        batch=6,
        check=True,
    )
    with League.open(folder) as lg:
        first = run_league(lg, 1, progress=None, max_new=4).played
    assert 0 < first < 12
    with League.open(folder) as lg:  # the resume
        assert run_league(lg, 2, progress=None).played == 12 - first
        assert lg.finished()
        faults = lg.store.db.execute(
            "SELECT faults.status, message FROM faults JOIN bots ON bots.id = faults.bot"
            " WHERE bots.name = 'hostile'"
        ).fetchall()
    assert faults and all(status == "bad_reply" for status, _ in faults)
    assert all("nested deeper than 32 levels" in message for _, message in faults)
    assert_audited(folder)


def test_a_crash_carries_the_last_words_of_the_bot_even_when_the_drain_lags(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The stderr tail of a bot that has exited is read to its end, not raced: here the thread
    that drains stderr starts late (as on a loaded machine)."""
    drain = StderrTail._drain

    def late(self: StderrTail) -> None:
        time.sleep(0.2)
        drain(self)

    monkeypatch.setattr(StderrTail, "_drain", late)
    with BotPool(LIMITS) as pool:
        record = play(pool, "t", bot("crash.py"), load_bot("builtin:first"))
    (fault,) = record.faults
    assert fault.kind is FaultKind.CRASH
    assert "boom: the test bot crashes here" in fault.stderr_tail

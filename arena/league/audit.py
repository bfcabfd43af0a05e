"""The audit: replay every stored match through the rules and check what the store says.

For each stored result the audit checks, against the schedule and the rules alone:

* the record belongs where it is stored: its id, game, seed and options are the scheduled ones,
  the id and the game seed are the ones the league seed gives for its batch, ordinal and table,
  the match was not cancelled, and each seat's bot is the scheduled entrant's;
* the actions replay exactly as the match loop plays: every group of simultaneous decisions is
  the seats :meth:`~arena.games.State.to_move` lists, in seat order, each action legal at its
  step, and the game ends with the last action;
* faults and fallbacks agree: one fault per faulted seat, every decision of a faulted seat from
  its fault on is a fallback (the first legal action), and no other decision is;
* the result is the rules' result (scores, game ranks, details), the final ranks are the game
  ranks with the faulted seats demoted, and the store's own columns (ranks, scores, fault count,
  the fault rows) agree with the record.

Then, for the league as a whole: the stored ratings are the ones recomputed from the stored
results, and every rated batch is complete. Each problem names its match id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from arena.games import JSON, Result, State, get_game
from arena.league.core import League
from arena.league.schedule import game_seed, match_id
from arena.league.store import StoredResult
from arena.match import demote_faulted


@dataclass(frozen=True)
class Problem:
    match_id: str
    """The match the problem is in; empty for the league as a whole."""
    message: str

    def __str__(self) -> str:
        return f"{self.match_id or 'league'}: {self.message}"


@dataclass
class AuditReport:
    matches: int = 0
    actions: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def bad_matches(self) -> list[str]:
        """The ids of the matches with a problem, in the order found, each once."""
        return list(dict.fromkeys(p.match_id for p in self.problems if p.match_id))


def norm(value: JSON) -> JSON:
    """``value`` as it reads back from JSON (tuples become lists), for comparisons."""
    return orjson.loads(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))


Placement = Callable[[StoredResult], list[str]]
"""The problems of a stored match's place in its plan: its id, seed and seats are the ones
the plan gives that place (the league's schedule, or an A/B test's blocks)."""


def league_placement(league_seed: int) -> Placement:
    """The check of a league's schedule: ids and seeds from the league seed; no result for a
    cancelled match."""

    def check(stored: StoredResult) -> list[str]:
        out: list[str] = []
        if stored.cancelled:
            out.append("the match is cancelled but has a result")
        _check_seeds(stored, league_seed, out)
        return out

    return check


def check_match(
    stored: StoredResult, placement: Placement, sources: Mapping[int, str]
) -> tuple[list[str], int]:
    """The problems of one stored match (empty if none) and the number of actions replayed."""
    out: list[str] = []
    if stored.batch < 0:
        return ["a result without a scheduled match"], 0
    rec = stored.record
    if not isinstance(rec, dict):
        return ["the stored record is not a JSON object"], 0
    try:
        return _check(stored, rec, placement, sources, out)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        out.append(f"malformed record: {type(exc).__name__}: {exc}")
        return out, 0


def _check(
    stored: StoredResult,
    rec: dict[str, Any],
    placement: Placement,
    sources: Mapping[int, str],
    out: list[str],
) -> tuple[list[str], int]:
    """Every check of one match in turn, each appending its problems to ``out``; a check whose
    failure makes the later ones meaningless stops there."""
    out += placement(stored)
    if not _check_placement(stored, rec, sources, out):
        return out, 0
    faults = rec["faults"]
    actions = [(int(seat), action) for seat, action in rec["actions"]]
    fault_step = _fault_steps(faults, len(stored.bots), len(actions), out)
    fallback = _check_fallbacks(rec["fallback_steps"], actions, fault_step, out)
    try:
        state = get_game(stored.game).new(stored.seed, len(stored.bots), stored.options)
    except Exception as exc:
        out.append(f"cannot start the game: {exc}")
        return out, 0
    replayed, complete = _replay(state, actions, fallback, out)
    if complete:
        _check_result(state.result(), rec, fault_step, out)
        _check_columns(stored, rec, faults, fault_step, out)
    return out, replayed


def _check_placement(
    stored: StoredResult,
    rec: dict[str, Any],
    sources: Mapping[int, str],
    out: list[str],
) -> bool:
    """The record belongs where it is stored: its id, game, seed, options and seats are the
    scheduled ones. False if the seats or the game differ, so the replay would mean nothing."""
    if rec["match_id"] != stored.match_id:
        out.append(f"the record says match id {rec['match_id']!r}")
    if rec["game"] != stored.game:
        out.append(f"the record's game is {rec['game']!r}, scheduled {stored.game!r}")
    if rec["seed"] != stored.seed:
        out.append(f"the record's seed is {rec['seed']}, scheduled {stored.seed}")
    if norm(rec["options"]) != norm(dict(stored.options)):
        out.append(f"the record's options {rec['options']} are not the scheduled ones")
    seats = rec["seats"]
    n = len(stored.bots)
    if len(seats) != n:
        out.append(f"{len(seats)} seats recorded, {n} scheduled")
        return False
    for seat, bot in enumerate(stored.bots):
        want = sources.get(bot)
        if want is None:
            out.append(f"seat {seat}: scheduled bot {bot} is not an entrant")
        elif seats[seat].get("bot") != want:
            out.append(f"seat {seat}: played by {seats[seat].get('bot')!r}, scheduled {want!r}")
    return not (out and rec["game"] != stored.game)


def _check_seeds(stored: StoredResult, league_seed: int, out: list[str]) -> None:
    """The match id and the game seed are the ones the league seed gives for their place."""
    if match_id(league_seed, stored.batch, stored.ordinal) != stored.match_id:
        out.append(
            f"the id is not the league's id for batch {stored.batch} ordinal {stored.ordinal}"
        )
    # Solo tables of one round share the deal of the round's first solo table.
    tabs = range(stored.tab + 1) if len(stored.bots) == 1 else (stored.tab,)
    if all(game_seed(league_seed, stored.batch, stored.game, t) != stored.seed for t in tabs):
        out.append(f"the scheduled seed is not the league's seed for table {stored.tab}")


def _fault_steps(
    faults: Sequence[Mapping[str, Any]], seats: int, steps: int, out: list[str]
) -> dict[int, int]:
    """The step of each faulted seat's fault; one fault per seat, each inside the match."""
    fault_step: dict[int, int] = {}
    for f in faults:
        seat, step = f["seat"], f["step"]
        if not isinstance(seat, int) or not 0 <= seat < seats:
            out.append(f"a fault of seat {seat!r}, which does not exist")
            continue
        if seat in fault_step:
            out.append(f"seat {seat} has more than one fault")
        if not isinstance(step, int) or not 0 <= step <= steps:
            out.append(f"seat {seat}'s fault is at step {step!r}, outside the match")
            continue
        fault_step[seat] = min(step, fault_step.get(seat, step))
    return fault_step


def _check_fallbacks(
    listed: Sequence[Any],
    actions: Sequence[tuple[int, Any]],
    fault_step: Mapping[int, int],
    out: list[str],
) -> set[Any]:
    """Every decision of a faulted seat from its fault on is a fallback, and no other is;
    returns the fallback steps."""
    fallback = set(listed)
    if len(fallback) != len(listed):
        out.append("a fallback step is listed twice")
    for step in sorted(fallback):
        if not isinstance(step, int) or not 0 <= step < len(actions):
            out.append(f"fallback step {step!r} is outside the match")
    for step, (seat, _) in enumerate(actions):
        faulted_by_now = seat in fault_step and step >= fault_step[seat]
        if faulted_by_now and step not in fallback:
            out.append(f"step {step}: seat {seat} had faulted but did not get the fallback")
        elif not faulted_by_now and step in fallback:
            out.append(f"step {step}: a fallback action for seat {seat}, which had not faulted")
    return fallback


def _replay(
    state: State, actions: Sequence[tuple[int, Any]], fallback: set[Any], out: list[str]
) -> tuple[int, bool]:
    """Play ``actions`` through the rules as the match loop does: (actions replayed, whether
    the replay reached the end of the game, so that its result can be checked)."""
    i = 0
    try:
        while not state.is_over():
            movers = state.to_move()
            legal = {seat: norm(state.legal(seat)) for seat in movers}
            for seat in movers:
                problem = _step_problem(i, seat, actions, legal[seat])
                if problem:
                    out.append(problem)
                    return i, False
                if i in fallback and legal[seat] and norm(actions[i][1]) != legal[seat][0]:
                    out.append(
                        f"step {i}: the fallback for seat {seat} is not the first legal action"
                    )
                state.apply(seat, actions[i][1])
                i += 1
    except Exception as exc:
        out.append(f"step {i}: the rules refuse the replay: {type(exc).__name__}: {exc}")
        return i, False
    if i != len(actions):
        out.append(f"the game ends after {i} actions but {len(actions)} are recorded")
    return i, True


def _step_problem(i: int, seat: int, actions: Sequence[tuple[int, Any]], legal: Any) -> str:
    """Why step ``i`` cannot be replayed with ``seat`` to move ("" if it can)."""
    if i >= len(actions):
        return f"the actions end at step {i} before the game does"
    got, action = actions[i]
    if got != seat:
        return f"step {i}: seat {got} acted, but seat {seat} was to move"
    if norm(action) not in legal:
        return f"step {i}: seat {seat}'s action {action!r} is not legal"
    return ""


def _check_result(
    result: Result, rec: dict[str, Any], fault_step: Mapping[int, int], out: list[str]
) -> None:
    """The recorded result is the rules' result; the final ranks demote the faulted seats."""
    rules = norm(result.to_json())
    recorded = rec["result"]
    for key in ("scores", "ranks", "details"):
        if norm(recorded.get(key)) != rules[key]:
            out.append(f"result {key}: recorded {recorded.get(key)}, the rules give {rules[key]}")
    final = list(demote_faulted(result.ranks, set(fault_step)))
    if list(rec["ranks"]) != final:
        out.append(f"final ranks: recorded {rec['ranks']}, the rules and faults give {final}")


def _check_columns(
    stored: StoredResult,
    rec: dict[str, Any],
    faults: Sequence[Mapping[str, Any]],
    fault_step: Mapping[int, int],
    out: list[str],
) -> None:
    """The store's own columns (ranks, scores, fault count, fault rows) agree with the record."""
    if stored.ranks != rec["ranks"]:
        out.append(f"the store's ranks {stored.ranks} differ from the record's {rec['ranks']}")
    if stored.scores != rec["result"].get("scores"):
        out.append(f"the store's scores {stored.scores} differ from the record's")
    if stored.faults != len(fault_step):
        out.append(f"the store counts {stored.faults} faulted seats, the record {len(fault_step)}")
    n = len(stored.bots)
    want_rows = sorted(
        (f["seat"], stored.bots[f["seat"]], f["step"], f["status"], f["message"])
        for f in faults
        if isinstance(f["seat"], int) and 0 <= f["seat"] < n
    )
    if sorted(stored.fault_rows) != want_rows:
        out.append("the store's fault rows differ from the record's faults")


def audit(league: League, placement: Placement | None = None) -> AuditReport:
    """Replay and check every stored match of ``league``, then its ratings. ``placement``
    checks each match's id, seed and seats against its plan: by default the league's
    schedule; an A/B test passes its own (its blocks have ids and seeds of their own)."""
    report = AuditReport()
    sources = {e.id: e.source for e in league.entrants()}
    check_place = placement or league_placement(league.config.seed)
    for stored in league.store.stored_results():
        report.matches += 1
        problems, replayed = check_match(stored, check_place, sources)
        report.actions += replayed
        report.problems += [Problem(stored.match_id, p) for p in problems]
    rated = league.rated_batches()
    for batch in range(rated):
        if not league.store.batch_complete(batch):
            report.problems.append(Problem("", f"batch {batch} is rated but not complete"))
    stored_rows = _rounded(league.load_ratings().rows())
    again = _rounded(league.rate_from_scratch().rows())
    if stored_rows != again:
        changed = sorted({(g, b) for g, b, *_ in set(stored_rows) ^ set(again)})
        report.problems.append(
            Problem(
                "",
                "the stored ratings differ from the ones the stored results give for "
                + ", ".join(f"bot {b} in {g}" for g, b in changed[:10]),
            )
        )
    return report


def _rounded(rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return sorted(tuple(round(x, 9) if isinstance(x, float) else x for x in r) for r in rows)

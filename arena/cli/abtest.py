"""``arena abtest``: is NEW better than OLD? A sequential test on paired blocks (docs/ABTEST.md).

The test lives in a league folder (:mod:`arena.abtest.folder`) and is played by the league
driver with the test's :class:`~arena.abtest.folder.BlockPlanner`; running the command again on
the folder resumes it. Registered on the main group in :mod:`arena.cli`.
"""

from __future__ import annotations

import json
import math
import re
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

import click

from arena.abtest.folder import AbTestError, BlockPlanner, Progress, Settings, open_test
from arena.abtest.report import REPORT_FILE, write_report
from arena.abtest.sprt import Scale, Verdict
from arena.cli.common import DEFAULT_ROOT, SEED, WORKERS, open_league
from arena.cli.play import parse_options
from arena.games import GameError, get_game
from arena.league.config import ExecutorKind
from arena.league.core import League
from arena.league.store import Entrant
from arena.run.driver import Interrupted, WorkerLost
from arena.run.local import run_league
from arena.runtime.manifest import BotError
from arena.runtime.sandbox import isolation_line, protect
from arena.terminal import failure, shown

PROBABILITY = click.FloatRange(min=0, max=1, min_open=True, max_open=True)


@dataclass(frozen=True)
class Run:
    """How to play a test (none of it changes the verdict)."""

    workers: int
    executor: str | None
    scheduler: str | None
    live: TextIO | None


def slug(text: str) -> str:
    """A bot named on the command line, as a piece of a folder name."""
    name = text.rsplit(":", 1)[-1].rstrip("/").rsplit("/", 1)[-1] or "bot"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name)[:40]


def hypotheses(
    nelo: tuple[float | None, float | None],
    elo: tuple[float | None, float | None],
    score: tuple[float | None, float | None],
) -> tuple[str, float, float]:
    """The one pair of hypotheses asked for (default: nElo [0, 5])."""
    given = [
        (scale, pair)
        for scale, pair in ((Scale.NELO, nelo), (Scale.ELO, elo), (Scale.SCORE, score))
        if pair != (None, None)
    ]
    if len(given) > 1:
        raise click.UsageError("give one pair of bounds: --nelo0/1, --elo0/1 or --score0/1")
    if not given:
        return Scale.NELO.value, 0.0, 5.0
    scale, (h0, h1) = given[0]
    if h1 is None:
        raise click.UsageError(f"give --{scale.value}1 (H1) with --{scale.value}0")
    if h0 is None:  # H0 defaults to "no difference"
        h0 = 0.5 if scale is Scale.SCORE else 0.0
    if not (math.isfinite(h0) and math.isfinite(h1)):
        raise click.BadParameter(
            "the bounds must be finite numbers", param_hint=f"--{scale.value}0/--{scale.value}1"
        )
    if not h0 < h1:
        raise click.BadParameter(
            f"H0 ({h0:g}) must be below H1 ({h1:g})",
            param_hint=f"--{scale.value}0/--{scale.value}1",
        )
    return scale.value, h0, h1


def live_line(stream: TextIO | None) -> Callable[[BlockPlanner], None]:
    """The callback that shows the test's progress on ``stream`` (throttled)."""
    last = [0.0]
    tty = bool(stream is not None and stream.isatty())

    def show(planner: BlockPlanner) -> None:
        if stream is None:
            return
        now = time.monotonic()
        if not planner.finished and now - last[0] < (0.2 if tty else 5.0):
            return
        last[0] = now
        line = "abtest: " + status_line(planner.progress())
        if tty:
            stream.write("\r" + line.ljust(100))
        else:
            stream.write(line + "\n")
        stream.flush()

    return show


def status_line(progress: Progress) -> str:
    status, est = progress.status, progress.estimate
    text = f"blocks {status.blocks}"
    if est is not None:
        text += f", score {est.score:.3f} [{est.score_low:.3f}, {est.score_high:.3f}]"
        if est.nelo is not None:
            text += f", nElo {est.nelo:+.1f}"
        text += f", Elo {est.elo:+.1f}"
    return text + f", LLR {status.llr:+.2f} ({status.lower:+.2f}, {status.upper:+.2f})"


VERDICT_TEXT = {
    Verdict.H1: "H1 accepted: NEW is better",
    Verdict.H0: "H0 accepted: NEW is not better by H1",
    Verdict.UNDECIDED: "undecided",
}


def summary(folder: Path, settings: Settings, planner: BlockPlanner) -> dict[str, Any]:
    """The test's result as plain JSON (what --json prints)."""
    p = planner.progress()
    verdict = p.status.verdict.value if p.status.finished else "running"
    return {
        "folder": str(folder),
        "verdict": verdict,
        "settings": settings.to_json(),
        "status": p.status.to_json(),
        "estimate": None if p.estimate is None else p.estimate.to_json(),
        "blocks": p.status.blocks,
        "matches": 2 * p.status.blocks,
        "matches_played": planner.played(),
        "faults": {"new": p.new_faults, "old": p.old_faults},
        "counts": p.counts,
        "llr": p.history,
    }


def describe(data: dict[str, Any], settings: Settings) -> str:
    status = data["status"]
    if not status["finished"]:
        head = "not finished (run again to resume)"
    elif data["verdict"] == "undecided":
        head = f"undecided at the cap of {status['blocks']} blocks"
    else:
        head = VERDICT_TEXT[Verdict(data["verdict"])]
    hyp = settings.hypotheses().describe()
    lines = [
        f"{head} ({hyp}, alpha {settings.alpha:g}, beta {settings.beta:g})",
        f"  LLR {status['llr']:+.3f} ({status['lower']:+.3f}, {status['upper']:+.3f})"
        f" after {data['blocks']} blocks ({data['matches']} matches;"
        f" {data['matches_played']} played in all)",
    ]
    est = data["estimate"]
    if est is not None:
        nelo = ""
        if est["nelo"] is not None:
            nelo = f", nElo {est['nelo']:+.1f} [{fmt(est['nelo_low'], '-inf')}, {fmt(est['nelo_high'], '+inf')}]"
        lines.append(
            f"  score {est['score']:.4f} [{est['score_low']:.4f}, {est['score_high']:.4f}],"
            f" Elo {fmt(est['elo'], '+inf' if est['score'] > 0.5 else '-inf')} [{fmt(est['elo_low'], '-inf')}, {fmt(est['elo_high'], '+inf')}]{nelo}"
        )
    lines.append(
        f"  faults in the tested seat: NEW {data['faults']['new']}, OLD {data['faults']['old']}"
    )
    lines.append(f"  folder: {data['folder']}")
    if "report" in data:
        lines.append(f"  report: {data['report']}")
    return "\n".join(lines)


def fmt(value: float | None, infinite: str) -> str:
    """An Elo for the text output; None is an infinite Elo (every block won, or lost)."""
    return infinite if value is None else f"{value + 0.0:+.1f}"  # never "-0.0" for 0


def play_test(folder: Path, settings: Settings, run: Run) -> dict[str, Any]:
    """Make or resume the test in ``folder`` and play it to its verdict; its summary."""
    try:
        settings, entrants, _ = open_test(folder, settings, run.workers)
    except AbTestError as exc:
        raise failure(exc) from None
    with League.open(folder) as lg:
        planner = BlockPlanner(
            lg, settings, entrants, ahead=4 * run.workers, on_block=live_line(run.live)
        )
        drive_test(lg, planner, run)
        if run.live is not None and run.live.isatty():
            run.live.write("\n")
        data = summary(folder, settings, planner)
    write_report(folder, data, describe(data, settings).splitlines()[0])
    data["report"] = str(folder / REPORT_FILE)
    return data


def drive_test(lg: League, planner: BlockPlanner, run: Run) -> None:
    try:
        protect(lg.folder)
    except OSError as exc:
        click.echo(f"warning: cannot make {lg.folder} private: {exc.strerror}", err=True)
    kind = ExecutorKind(run.executor) if run.executor else None
    dask = (kind or (ExecutorKind.DASK if run.scheduler else ExecutorKind.LOCAL)) is (
        ExecutorKind.DASK
    )

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    if run.live is not None:
        line = isolation_line(lg.config.run_limits().sandbox.method)
        click.echo(line + (" (here; each Dask worker chooses its own)" if dask else ""), err=True)
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        if dask:
            from arena.run.cluster import DaskError, run_league_dask  # optional extra

            try:
                run_league_dask(
                    lg, run.scheduler, workers=run.workers, progress=None, planner=planner
                )
            except DaskError as exc:
                raise failure(exc) from None
        else:
            run_league(lg, run.workers, progress=None, planner=planner)
    except (Interrupted, WorkerLost) as exc:
        raise failure(exc) from None
    except BotError as exc:
        raise click.ClickException(f"a bot of the test cannot be started: {shown(exc)}") from None
    finally:
        signal.signal(signal.SIGTERM, previous)


def from_league(
    name_of_league: str, name: str, game: str | None
) -> tuple[str, str, str, tuple[int, ...], dict[str, Any], str]:
    """(NEW, OLD, game, the league's table sizes, its options, a folder name) for the league's
    current version of ``name`` against its previous one."""
    with open_league(name_of_league, read_only=True) as lg:
        entrants = lg.entrants()
        mine = [e for e in entrants if e.name == name]
        if not mine:
            raise click.ClickException(f"{name!r} is not an entrant of {name_of_league}")
        live = [e for e in mine if e.status.live]
        current = live[-1] if live else mine[-1]
        previous = next((e for e in entrants if e.id == current.previous), None)
        if previous is None:
            raise click.ClickException(
                f"{name} has one version in {name_of_league}: nothing to test it against"
            )
        games = [g for g in current.games if g in previous.games]
        if game is None:
            if len(games) != 1:
                raise click.UsageError(
                    f"{name} plays {', '.join(games)} in the league: choose one with --game"
                )
            game = games[0]
        elif game not in games:
            raise click.BadParameter(
                f"both versions of {name} play {', '.join(games) or 'no common game'}",
                param_hint="--game",
            )
        config = lg.config.game(game)

        def text(e: Entrant) -> str:
            return e.source if e.source.startswith("builtin:") else str(lg.folder / e.source)

        where = f"abtest-{slug(name)}-{current.version[:8]}-vs-{previous.version[:8]}-{game}"
        return text(current), text(previous), game, config.seats, dict(config.options), where


@click.command()
@click.argument("bots", nargs=-1, metavar="NEW OLD")
@click.option(
    "--game", default=None, help="The game (with --league: only if the bot plays several)."
)
@click.option(
    "--seats",
    type=int,
    default=None,
    help="Table size (default 4, or the league's, or the nearest the game allows).",
)
@click.option(
    "--opponents",
    multiple=True,
    metavar="BOT",
    help="A bot for the other seats (repeatable; rotated seat by seat). Default: OLD.",
)
@click.option("--nelo0", type=float, default=None, help="H0 in normalised Elo (default 0).")
@click.option("--nelo1", type=float, default=None, help="H1 in normalised Elo (default 5).")
@click.option("--elo0", type=float, default=None, help="H0 in logistic Elo of the block score.")
@click.option("--elo1", type=float, default=None, help="H1 in logistic Elo of the block score.")
@click.option("--score0", type=PROBABILITY, default=None, help="H0 as a mean block score.")
@click.option("--score1", type=PROBABILITY, default=None, help="H1 as a mean block score.")
@click.option(
    "--alpha", type=PROBABILITY, default=0.05, show_default=True, help="False-positive rate."
)
@click.option(
    "--beta", type=PROBABILITY, default=0.05, show_default=True, help="False-negative rate."
)
@click.option(
    "--max-blocks", type=click.IntRange(min=1), default=None, help="Stop undecided after N blocks."
)
@click.option(
    "--seed", type=SEED, default=1, show_default=True, help="The test's seed (its deals)."
)
@click.option(
    "--dir",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The test's folder (default results/abtest-NEW-vs-OLD-GAME-SEATS); run again to resume.",
)
@click.option("--workers", type=WORKERS, default=2, show_default=True)
@click.option(
    "--executor",
    type=click.Choice([kind.value for kind in ExecutorKind]),
    default=None,
    help="Where matches run (default local).",
)
@click.option("--scheduler", metavar="ADDR", default=None, help="The Dask scheduler (with dask).")
@click.option(
    "--option", "options", multiple=True, metavar="NAME=VALUE", help="A game option (repeatable)."
)
@click.option(
    "--gauntlet",
    is_flag=True,
    help="One test per opponent (each alone in the other seats), in FOLDER/vs-K-NAME.",
)
@click.option(
    "--league",
    "league_name",
    default=None,
    metavar="L",
    help="Test NAME's current version in league L against its previous one.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object at the end.")
@click.option("--quiet", is_flag=True, help="No live line.")
def abtest(
    bots: tuple[str, ...],
    game: str | None,
    seats: int | None,
    opponents: tuple[str, ...],
    nelo0: float | None,
    nelo1: float | None,
    elo0: float | None,
    elo1: float | None,
    score0: float | None,
    score1: float | None,
    alpha: float,
    beta: float,
    max_blocks: int | None,
    seed: int,
    folder: Path | None,
    workers: int,
    executor: str | None,
    scheduler: str | None,
    options: tuple[str, ...],
    gauntlet: bool,
    league_name: str | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Is NEW better than OLD? Play paired blocks (one deal, NEW then OLD in the same seat, the
    same opponents) until a sequential test (SPRT) decides, and print its verdict.

    H1 accepted: NEW is better. H0 accepted: NEW is not better by the H1 bound. Undecided: the
    cap on blocks came first. How to read it: docs/ABTEST.md. The test lives in a folder (a
    league folder): run the same command again to resume it after Ctrl-C or kill -9.

    \b
    Examples:
      arena abtest ./my-bot-v2 ./my-bot-v1 --game take5 --seats 4
      arena abtest bundled:heuristic bundled:random --game ten --nelo1 50
      arena abtest ./v2 ./v1 --game take5 --opponents bundled:heuristic bundled:random --gauntlet
      arena abtest --league my-league my-bot --game take5
    """
    league_seats: tuple[int, ...] = ()
    league_options: dict[str, Any] | None = None
    if league_name is not None:
        if len(bots) != 1:
            raise click.UsageError("with --league give one bot NAME (an entrant of the league)")
        new, old, game, league_seats, league_options, where = from_league(
            league_name, bots[0], game
        )
    else:
        if len(bots) != 2:
            raise click.UsageError("give two bots: NEW OLD")
        if game is None:
            raise click.UsageError("choose the game with --game")
        new, old = bots
        where = ""
    try:
        spec = get_game(game)
    except GameError as exc:
        raise click.BadParameter(str(exc), param_hint="--game") from None
    low, high = max(2, spec.min_seats), spec.max_seats
    if seats is None:
        seats = league_seats[0] if league_seats else min(max(4, low), high)
    if not low <= seats <= high:
        raise click.BadParameter(
            f"{spec.name} is played by {spec.min_seats} to {high} seats and an A/B test needs"
            f" at least 2: {seats} is out of range",
            param_hint="--seats",
        )
    given = parse_options(spec, options) if options or league_options is None else league_options
    scale, h0, h1 = hypotheses((nelo0, nelo1), (elo0, elo1), (score0, score1))
    if gauntlet and not opponents:
        raise click.UsageError("--gauntlet needs --opponents (one test per opponent)")
    if not where:
        where = f"abtest-{slug(new)}-vs-{slug(old)}-{spec.name}-{seats}"
    base = folder if folder is not None else DEFAULT_ROOT / where
    settings = Settings(
        game=spec.name,
        seats=seats,
        new=new,
        old=old,
        opponents=tuple(opponents),
        options=given,
        scale=scale,
        h0=h0,
        h1=h1,
        alpha=alpha,
        beta=beta,
        max_blocks=max_blocks,
        seed=seed,
    )
    try:
        settings.check()
    except AbTestError as exc:
        raise click.UsageError(str(exc)) from None
    run = Run(workers, executor, scheduler, None if quiet or as_json else sys.stderr)
    if not gauntlet:
        data = play_test(base, settings, run)
        click.echo(json.dumps(data) if as_json else describe(data, settings))
        return
    results = []
    for i, opponent in enumerate(opponents):
        one = replace(settings, opponents=(opponent,))
        sub = base / f"vs-{i + 1}-{slug(opponent)}"
        base.mkdir(parents=True, exist_ok=True)
        if run.live is not None:
            click.echo(f"against {opponent}:", err=True)
        data = play_test(sub, one, run)
        data["opponent"] = opponent
        results.append(data)
        if not as_json:
            click.echo(f"against {opponent}:\n" + describe(data, one))
    if as_json:
        click.echo(json.dumps({"gauntlet": results}))

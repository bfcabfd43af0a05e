"""Bots without a league: ``arena games``, ``arena play``, ``arena human``, ``arena check``."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO, TextIO

import click

from arena import resources
from arena.cli.common import SEED, league_path, load_bots, run_limits, time_options
from arena.games import GAMES, JSON, GameError, GameSpec, State, get_game
from arena.human import HumanAgent
from arena.league.config import ConfigError, load_config
from arena.league.conformance import HINTS, changed_options, check_bot
from arena.match import MatchRecord, MatchSpec, SeatFault, play_match, run_match
from arena.players import RandomPlayer, play_local
from arena.runtime.botproc import Fault, RunLimits, StderrSink, spin_when_idle
from arena.runtime.manifest import BotKind, BotSpec, load_bot
from arena.runtime.pool import BotPool
from arena.runtime.sandbox import isolation_line, isolation_summary
from arena.terminal import failure, shown, shown_lines


def parse_options(spec: GameSpec, pairs: Sequence[str]) -> dict[str, JSON]:
    """``["k=v", ...]`` → validated options; a clear ClickException on anything wrong."""
    given: dict[str, JSON] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise click.BadParameter(f"expected NAME=VALUE, not {pair!r}", param_hint="--option")
        given[name.strip()] = value
    try:
        return spec.validate_options(given)
    except GameError as exc:
        raise click.BadParameter(str(exc), param_hint="--option") from None


def final_table(state: State, names: Sequence[str]) -> str:
    result = state.result()
    order = sorted(range(state.seats), key=lambda s: (result.ranks[s], s))
    width = max(len(n) for n in names)
    lines = [f"{'place':>5}  {'seat':>4}  {'player':<{width}}  score"]
    for seat in order:
        score = result.scores[seat]
        points = int(score) if float(score).is_integer() else score
        lines.append(f"{result.ranks[seat]:>5}  {seat:>4}  {names[seat]:<{width}}  {points}")
    return "\n".join(lines)


@click.command()
def games() -> None:
    """List the games, their seat ranges and their options."""
    for spec in GAMES.values():
        click.echo(f"{spec.name}: {spec.title}, {spec.min_seats}-{spec.max_seats} seats")
        click.echo(f"  {spec.summary}")
        click.echo(f"  rules: {rules_path(spec.rules_file)}")
        for option in spec.options:
            click.echo(f"  --option {option.describe()}")
        click.echo()


def rules_path(name: str) -> str:
    """Where a game's rules document is: seeds/NAME in a checkout, the packaged copy otherwise."""
    path = resources.seeds() / name
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def record_table(record: MatchRecord) -> str:
    """Places, seats, bots and scores; a faulted seat is marked."""
    scores = record.result["scores"]
    faulted = {f.seat for f in record.faults}
    names = [shown(seat["name"]) for seat in record.seats]
    width = max(len(n) for n in names)
    order = sorted(range(len(names)), key=lambda s: (record.ranks[s], s))
    lines = [f"{'place':>5}  {'seat':>4}  {'bot':<{width}}  score"]
    for seat in order:
        score = scores[seat]
        points = int(score) if float(score).is_integer() else score
        mark = "  (faulted: ranked last)" if seat in faulted else ""
        lines.append(f"{record.ranks[seat]:>5}  {seat:>4}  {names[seat]:<{width}}  {points}{mark}")
    return "\n".join(lines)


def describe_fault(fault: SeatFault, name: str, tail_lines: int = 5) -> str:
    """A fault for the terminal: every piece of bot text shown escaped, the stderr tail line
    by line."""
    text = (
        f"FAULT seat {fault.seat} ({shown(name)}) at step {fault.step}: "
        f"{fault.kind.value}: {shown(fault.message)}"
    )
    tail = [line for line in shown_lines(fault.stderr_tail) if line.strip()][-tail_lines:]
    if tail:
        text += "\n  stderr (end):\n" + "\n".join("    " + line for line in tail)
    return text


def alike(faults: Sequence[SeatFault]) -> list[list[SeatFault]]:
    """The faults grouped by kind and message, in order of first appearance: a bot that times
    out in every seat is told once, with where else it happened."""
    groups: dict[tuple[str, str], list[SeatFault]] = {}
    for fault in faults:
        groups.setdefault((fault.kind.value, fault.message), []).append(fault)
    return list(groups.values())


@click.command()
@click.argument("game")
@click.argument("bots", nargs=-1)
@click.option(
    "--seats",
    type=int,
    default=None,
    help="Number of seats when no bots are given (in-process random players; default 4).",
)
@click.option(
    "--seed",
    type=SEED,
    default=0,
    show_default=True,
    help="Seed of the first game; game k uses seed + k.",
)
@click.option(
    "--games",
    "count",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="How many games to play.",
)
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="NAME=VALUE",
    help="A game option (repeatable); see `arena games`.",
)
@click.option(
    "--fixed-seats",
    is_flag=True,
    help="Keep the bots in the seats given in every game (default: game k moves each bot k "
    "seats on, so that over several games every bot sits everywhere).",
)
@click.option(
    "--show-stderr",
    is_flag=True,
    help="Show what the bots write to stderr as they write it, each line after its bot's name.",
)
@click.option(
    "--logs",
    "logs_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep each bot process's stderr whole in a file here, NAME.SLOT.stderr (without it "
    "only the end of a faulted bot's stderr is shown).",
)
@time_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON record per game.")
@click.option("--quiet", is_flag=True, help="Print only the final table (and faults).")
def play(
    game: str,
    bots: tuple[str, ...],
    seats: int | None,
    seed: int,
    count: int,
    options: tuple[str, ...],
    fixed_seats: bool,
    show_stderr: bool,
    logs_dir: Path | None,
    decision_time: float,
    time_bank: float,
    startup_time: float,
    as_json: bool,
    quiet: bool,
) -> None:
    """Play GAME between BOTS and print an account of each game, and with --games N a summary
    per bot (wins, mean place, mean score, faults).

    The first game seats the bots in the order given; game k moves each of them k seats on
    (--fixed-seats keeps the order).

    A bot is a folder with a bot.toml, an executable file, builtin:random, builtin:first, a
    bundled bot (bundled:random, bundled:heuristic, bundled:js-random, bundled:reference: found
    wherever arena is installed), or human (you, at this terminal). With no bots, in-process
    random players take --seats seats.

    \b
    Examples:
      arena play take5 --seats 4 --seed 7
      arena play take5 bots/heuristic bots/random builtin:random --games 6
      arena play ten bundled:heuristic bundled:random
      arena play take5 human bots/heuristic
    """
    try:
        spec = get_game(game)
    except GameError as exc:
        raise failure(exc) from None
    if bots and seats is not None and seats != len(bots):
        raise click.BadParameter(
            f"{len(bots)} bots were given for {seats} seats", param_hint="--seats"
        )
    table = len(bots) if bots else (seats if seats is not None else 4)
    try:
        spec.check_seats(table)
    except GameError as exc:
        if bots:
            raise failure(exc) from None
        raise click.BadParameter(str(exc), param_hint="--seats") from None
    chosen = parse_options(spec, options)
    if not bots:
        play_random(spec, table, seed, count, chosen, as_json, quiet)
        return
    specs = load_bots(bots)
    for bot in specs:
        if not bot.plays(game):
            click.echo(f"note: {shown(bot.name)} does not list {game} among its games", err=True)
    limits = run_limits(decision_time, time_bank, startup_time)
    with PlayRun(
        game,
        specs,
        bots,
        seed=seed,
        options=chosen,
        fixed_seats=fixed_seats,
        limits=limits,
        as_json=as_json,
        quiet=quiet,
        show_stderr=show_stderr,
        logs_dir=logs_dir,
    ) as run:
        for k in range(count):
            run.play(k)
            if k + 1 < count and not as_json:
                click.echo()
    if count > 1 and not as_json:
        click.echo()
        click.echo(run.tally.table())
    if run.logs is not None and run.logs.folder is not None:
        click.echo(f"stderr of each bot process: {run.logs.folder}", err=True)


class PlayRun:
    """The games of one ``arena play`` with bots: the bots' pool, kept from game to game, the
    account of each game written as it ends, and the tally for the summary.

    Use it as a context manager (it closes the bots and their logs); :meth:`play` plays game
    ``k``. The benchmarks drive it too (``benchmarks/bench_loop.py``), so what they time is what
    the command does.
    """

    def __init__(
        self,
        game: str,
        specs: Sequence[BotSpec],
        given: Sequence[str] | None = None,
        *,
        seed: int = 0,
        options: dict[str, JSON] | None = None,
        fixed_seats: bool = False,
        limits: RunLimits | None = None,
        as_json: bool = False,
        quiet: bool = False,
        show_stderr: bool = False,
        logs_dir: Path | None = None,
        out: TextIO | None = None,
    ) -> None:
        self.spec = get_game(game)
        self.specs = tuple(specs)
        self.seed = seed
        self.options = dict(options or {})
        self.fixed_seats = fixed_seats
        self.as_json = as_json
        self.quiet = quiet
        self.out = out
        """Where the accounts go (None: standard output)."""
        self.limits = limits or RunLimits()
        self.sandbox: dict[str, JSON] | None = None
        """The isolation summary when any bot is a process (added to --json records)."""
        if any(bot.kind is BotKind.PROCESS for bot in self.specs):
            click.echo(isolation_line(self.limits.sandbox.method), err=True)
            self.sandbox = isolation_summary(self.limits.sandbox.method)
        typed = given if given is not None else [bot.source for bot in self.specs]
        self.tally = Tally([shown(bot.name) for bot in self.specs], [shown(t) for t in typed])
        wanted = self.sandbox is not None and (show_stderr or logs_dir is not None)
        self.logs = StderrLogs(logs_dir, show_stderr) if wanted else None
        sinks = self.logs.sink if self.logs is not None else None
        self.pool = BotPool(self.limits, human=HumanAgent, stderr_sink=sinks)
        spin_when_idle(1)  # this process is the only one that plays

    def __enter__(self) -> PlayRun:
        self.pool.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.pool.__exit__(None, None, None)
        finally:
            if self.logs is not None:
                self.logs.close()

    def echo(self, text: str) -> None:
        click.echo(text, file=self.out)

    def play(self, k: int) -> MatchRecord:
        """Play game ``k`` (seed + k, seats moved k places on unless fixed), write its account
        and count it in the tally."""
        order = seating(len(self.specs), 0 if self.fixed_seats else k)
        seated = tuple(self.specs[i] for i in order)
        game, seed = self.spec.name, self.seed + k
        match = MatchSpec(f"play-{k}", game, seed, seated, self.options)
        record, state = play_match(match, self.pool)
        self.tally.add(order, record)
        if self.as_json:
            out = record.to_json()
            if self.sandbox is not None:
                out["sandbox"] = self.sandbox
            self.echo(json.dumps(out))
            return record
        names = [str(s["name"]) for s in record.seats]
        lines = [f"== {self.spec.title}, {len(self.specs)} seats, seed {seed}"]
        if not self.quiet:
            describe = self.spec.state_class.describe
            lines += ["  " + shown(describe(event)) for event in state.public_events()]
        lines += [describe_fault(fault, names[fault.seat]) for fault in record.faults]
        lines.append(record_table(record))
        self.echo("\n".join(lines))  # one write a game, not one a line
        return record


class StderrLogs:
    """With a ``folder``, each bot process's stderr in a file of its own (``NAME.SLOT.stderr``,
    at most :data:`MAX_LOG` bytes); with ``live``, each line on the terminal after the bot's
    name, escaped like all bot text."""

    MAX_LOG = 16 * 1024 * 1024
    MAX_LIVE = 400
    """Bytes of a line shown live (the log file has it whole)."""

    def __init__(self, folder: Path | None, live: bool) -> None:
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.live = live
        self._lock = threading.Lock()
        self._files: list[BinaryIO] = []

    def sink(self, bot: BotSpec, slot: int) -> StderrSink:
        label = shown(bot.name) + (f"#{slot + 1}" if slot else "")
        file = None
        if self.folder is not None:
            file = (self.folder / f"{safe_file_name(bot.name)}.{slot}.stderr").open("ab")
            self._files.append(file)
        written = 0
        partial = b""

        def take(chunk: bytes) -> None:
            nonlocal written, partial
            if file is not None and written < self.MAX_LOG:
                kept = chunk[: self.MAX_LOG - written]
                file.write(kept)
                file.flush()
                written += len(kept)
            if self.live:
                partial += chunk
                *lines, partial = partial.split(b"\n")
                partial = partial[-4096:]
                with self._lock:
                    for line in lines:
                        text = shown(line[: self.MAX_LIVE].decode("utf-8", "replace"))
                        cut = " [cut]" if len(line) > self.MAX_LIVE else ""
                        click.echo(f"[{label}] {text}{cut}", err=True)

        return take

    def close(self) -> None:
        for file in self._files:
            file.close()


def safe_file_name(name: str) -> str:
    """A bot name as a file name: bot names are checked, but a hello name is the bot's."""
    return "".join(c if c.isalnum() or c in "-_+." else "_" for c in name)[:64].lstrip(".") or "bot"


def seating(bots: int, shift: int) -> list[int]:
    """Which bot sits in each seat when each moves ``shift`` seats on: seat s holds bot
    ``(s - shift) mod bots``."""
    return [(seat - shift) % bots for seat in range(bots)]


class Tally:
    """Per bot of the command line (a bot given twice is two entries): games, wins, places,
    scores and faults over a ``play --games N`` run."""

    def __init__(self, names: Sequence[str], given: Sequence[str]) -> None:
        """``names`` from the bots' hellos or manifests, ``given`` as typed; two bots of one
        name are told apart by what was typed, and one bot given twice by its position."""
        labels = [
            f"{name} ({text})" if given.count(text) < names.count(name) else name
            for name, text in zip(names, given, strict=True)
        ]
        self.names = [
            f"{label} #{i + 1}" if labels.count(label) > 1 else label
            for i, label in enumerate(labels)
        ]
        self.games = 0
        self.wins = [0] * len(names)
        self.places = [0] * len(names)
        self.scores = [0.0] * len(names)
        self.faults = [0] * len(names)

    def add(self, order: Sequence[int], record: MatchRecord) -> None:
        self.games += 1
        scores = record.result["scores"]
        assert isinstance(scores, list)
        faulted = {fault.seat for fault in record.faults}
        for seat, bot in enumerate(order):
            place = record.ranks[seat]
            self.wins[bot] += place == 1
            self.places[bot] += place
            score = scores[seat]
            self.scores[bot] += float(score) if isinstance(score, int | float) else 0.0
            self.faults[bot] += seat in faulted

    def table(self) -> str:
        """Best mean place first; a win is a first place, shared or not."""
        width = max(len(n) for n in self.names)
        lines = [
            f"== summary of {self.games} games (seats rotated unless --fixed-seats)",
            f"{'bot':<{width}}  {'wins':>5}  {'mean place':>10}  {'mean score':>10}  faults",
        ]
        n = self.games
        for bot in sorted(range(len(self.names)), key=lambda b: (self.places[b], b)):
            lines.append(
                f"{self.names[bot]:<{width}}  {self.wins[bot]:>5}  {self.places[bot] / n:>10.2f}"
                f"  {self.scores[bot] / n:>10.2f}  {self.faults[bot]:>6}"
            )
        return "\n".join(lines)


def play_random(
    spec: GameSpec,
    seats: int,
    seed: int,
    count: int,
    chosen: dict[str, JSON],
    as_json: bool,
    quiet: bool,
) -> None:
    names = [f"random-{s}" for s in range(seats)]
    for k in range(count):
        game_seed = seed + k
        players = [RandomPlayer(f"{game_seed}:{s}", names[s]) for s in range(seats)]
        played = play_local(spec, game_seed, players, chosen)
        state = played.state
        if as_json:
            record = {
                **played.replay.to_json(),
                "players": names,
                "result": state.result().to_json(),
            }
            click.echo(json.dumps(record))
            continue
        click.echo(f"== {spec.title}, {seats} seats, seed {game_seed}")
        if not quiet:
            for event in state.public_events():
                click.echo("  " + spec.state_class.describe(event))
        click.echo(final_table(state, names))
        if k + 1 < count:
            click.echo()


@click.command()
@click.argument("game")
@click.argument("opponents", nargs=-1, required=True)
@click.option("--seat", type=click.IntRange(min=0), default=0, show_default=True, help="Your seat.")
@click.option("--seed", type=SEED, default=None, help="Seed (default: random).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE", help="A game option.")
def human(
    game: str, opponents: tuple[str, ...], seat: int, seed: int | None, options: tuple[str, ...]
) -> None:
    """Take a seat yourself in GAME against OPPONENTS (bots, as for `arena play`)."""
    try:
        spec = get_game(game)
        spec.check_seats(len(opponents) + 1)
    except GameError as exc:
        raise failure(exc) from None
    if seat > len(opponents):
        raise click.BadParameter(f"seat must be 0..{len(opponents)}", param_hint="--seat")
    chosen = parse_options(spec, options)
    bots = list(load_bots(opponents))
    bots.insert(seat, load_bot("human"))
    game_seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    with BotPool(human=HumanAgent) as pool:
        record = run_match(MatchSpec("human", game, game_seed, tuple(bots), chosen), pool)
    for fault in record.faults:
        click.echo(describe_fault(fault, str(record.seats[fault.seat]["name"])))
    click.echo(record_table(record))


@click.command()
@click.argument("bot")
@click.option(
    "--matches",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Matches per game (per table size) it plays.",
)
@click.option(
    "--league",
    "league_name",
    metavar="L",
    default=None,
    help="Check with this league's games, table sizes, options and time limits "
    "(the --*-time options are then ignored; a bare name means results/NAME).",
)
@time_options
def check(
    bot: str,
    matches: int,
    league_name: str | None,
    decision_time: float,
    time_bank: float,
    startup_time: float,
) -> None:
    """Check that BOT speaks the protocol: handshake, matches of each game it claims, timings.

    Without --league each game is played at three seats (or the nearest count it allows) with
    its default options. Exits with status 1 if the bot fails to start or faults in any match.
    """
    (spec,) = load_bots([bot])
    if spec.kind is BotKind.HUMAN:
        raise click.BadParameter("a person is not checked: name a bot", param_hint="BOT")
    league_dir = None if league_name is None else league_path(league_name)
    if league_dir is None:
        limits = run_limits(decision_time, time_bank, startup_time)
        games = None
    else:
        try:
            config = load_config(league_dir)
        except ConfigError as exc:
            raise failure(exc) from None
        limits, games = config.run_limits(), config.games
    if spec.kind is BotKind.PROCESS:
        click.echo(isolation_line(limits.sandbox.method))
    report = check_bot(spec, matches, limits, games)
    if isinstance(report.hello, Fault):
        click.echo(f"FAIL start-up: {report.hello.kind.value}: {shown(report.hello.message)}")
        click.echo(f"  hint: {HINTS[report.hello.kind]}")
        tail = shown_lines(report.hello.stderr_tail.strip())[-10:]
        for line in tail:
            click.echo(f"  stderr: {line}")
        raise click.exceptions.Exit(1)
    name, version, seconds = report.hello
    click.echo(
        f"ok   hello: name {shown(repr(name))}, version {shown(repr(version))}, started in {seconds * 1000:.0f} ms"
    )
    if spec.kind is BotKind.PROCESS and name != spec.name:
        where = "bot.toml" if spec.games is not None else "its file name"
        click.echo(
            f"note its hello says name {shown(repr(name))} but {where} says "
            f"{shown(repr(spec.name))}: leagues, tables and pages use {where}'s"
        )
    for game in report.unknown_games:
        click.echo(
            f"note {shown(spec.name)} claims {shown(repr(game))}, which this arena does not know "
            f"(games: {', '.join(sorted(GAMES))}); not checked"
        )
    for game in report.not_played:
        click.echo(
            f"note {shown(spec.name)} claims {game!r}, which the league does not play; not checked"
        )
    if not report.games:
        if league_dir is None:
            click.echo("FAIL it claims no game this arena knows")
        else:
            click.echo(f"FAIL it claims none of the games of the league in {league_dir}")
        raise click.exceptions.Exit(1)
    for checked in report.games:
        decisions, mean, worst = checked.decision_times()
        faults = checked.own_faults()
        status = "FAIL" if faults else "ok  "
        sizes = "/".join(str(n) for n in checked.table_sizes())
        options = changed_options(checked.game, checked.options)
        click.echo(
            f"{status} {checked.game}: {len(checked.records)} matches at {sizes} seats"
            + (f" ({options})" if options else "")
            + f", {decisions} decisions, "
            f"mean {mean * 1000:.2f} ms, max {worst * 1000:.2f} ms per decision"
        )
        usage = checked.usage()
        if usage is not None:
            click.echo(f"     {usage.describe()}")
        for same in alike(faults):
            click.echo("  " + describe_fault(same[0], spec.name).replace("\n", "\n  "))
            if len(same) > 1:
                where = ", ".join(f"seat {f.seat} step {f.step}" for f in same[1:6])
                more = f" and {len(same) - 6} more" if len(same) > 6 else ""
                click.echo(f"    the same {len(same) - 1} more time(s): {where}{more}")
            click.echo(f"    hint: {HINTS[same[0].kind]}")
    if not report.passed:
        raise click.exceptions.Exit(1)
    click.echo("PASS")

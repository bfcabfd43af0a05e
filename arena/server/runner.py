"""The league runner of ``arena server``: one process that plays the league continuously and,
between runs of the driver, takes what the web side queued (:mod:`arena.server.jobs`).

It is a child process of the server (``python -m arena.server.runner L ...``), not a thread:
the league driver forks its worker processes, which must not happen in a process full of web
threads, and the league's pace does not share an interpreter lock with the web's. It reads its
stdin only to learn that the server is gone (end of input: a ``kill -9`` of the server too), and
then stops after the matches in flight, like on SIGTERM a second time Ctrl-C stops at once.
Only one runner works on a league at a time (a lock file), so a restarted server's runner waits
for a dying one.

Each round: withdrawals, validations (the conformance check of each upload, then the passing
ones entered into the league), scrimmages, then the league's own matches
(:func:`arena.run.local.run_league`, or Dask as configured) until something is queued; the site
is re-rendered and settled ratings reported after each run, and every few seconds during one.
What the driver committed stays, so a killed runner loses nothing and the next one resumes.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaSetupError
from arena.league.config import ExecutorKind
from arena.league.conformance import HINTS, CheckReport, changed_options, check_bot
from arena.league.core import League, LeagueError, bot_files, content_hash
from arena.league.store import Planned
from arena.run.driver import Interrupted, LeaguePlanner, Planner, RunReport, WorkerLost
from arena.run.local import run_league
from arena.runtime.botproc import Fault
from arena.runtime.manifest import BotError, load_bot
from arena.runtime.scratch import remove_tree
from arena.server import scrimmage as scrim_mod
from arena.server.jobs import UPLOADS_DIR, Jobs, Scrimmage, Validation
from arena.site.build import build_site

LOCK_FILE = "server.lock"
SITE_EVERY = 5.0
"""Seconds between re-renders of the site while the league plays."""
POLL = 1.0


@dataclass
class Options:
    folder: Path
    site: Path
    workers: int
    settled_sigma: float
    more: int
    """Matches added to a spent budget when a new version enters (0: never)."""
    executor: str = ""


def log(text: str) -> None:
    print(f"runner: {text}", file=sys.stderr, flush=True)


# -- validations ------------------------------------------------------------------------------


def shown_path(text: str, folder: Path) -> str:
    """A message with the server's paths taken out (the upload's folder reads "your bot")."""
    return text.replace(str(folder.resolve()), "<your bot>").replace(str(folder), "<your bot>")


def describe(report: CheckReport) -> tuple[list[dict[str, Any]], list[str], str]:
    """(faults, hints, stderr tail) of a conformance check, for the author."""
    faults: list[dict[str, Any]] = []
    hints: list[str] = []
    tail = ""
    if isinstance(report.hello, Fault):
        faults.append(
            {
                "where": "start-up",
                "status": report.hello.kind.value,
                "message": report.hello.message,
            }
        )
        hints.append(HINTS[report.hello.kind])
        tail = report.hello.stderr_tail
    for checked in report.games:
        for record, fault in checked.own():
            options = changed_options(checked.game, checked.options)
            where = f"{checked.game} at {len(record.seats)} seats" + (
                f" ({options})" if options else ""
            )
            faults.append(
                {
                    "where": where,
                    "status": fault.kind.value,
                    "step": fault.step,
                    "message": fault.message,
                }
            )
            if HINTS[fault.kind] not in hints:
                hints.append(HINTS[fault.kind])
            tail = tail or fault.stderr_tail
    return faults, hints, tail


def validate(league: League, jobs: Jobs, v: Validation) -> None:
    """Run the conformance check on an upload: ``checked`` if it passed, else ``failed``."""
    jobs.set_validation(v.id, "running")
    folder = league.folder / v.folder
    try:
        spec = load_bot(str(folder))
    except BotError as exc:
        fail(jobs, v, shown_path(str(exc), folder))
        return
    games = [g.name for g in league.config.games if spec.plays(g.name)]
    if not games:
        league_games = ", ".join(g.name for g in league.config.games)
        fail(jobs, v, f"{v.bot} plays none of the league's games ({league_games})")
        return
    try:
        report = check_bot(
            spec, 1, league.config.run_limits(), [league.config.game(g) for g in games]
        )
    except (ArenaSetupError, BotError) as exc:
        fail(jobs, v, f"the arena could not run the check (not your bot's fault): {exc}")
        return
    faults, hints, tail = describe(report)
    if report.passed:
        jobs.set_validation(v.id, "checked", faults=[], hints=[], stderr_tail=tail[-4096:])
        return
    message = "the conformance check failed" if faults else "the check played no game"
    fail(jobs, v, message, faults=faults, hints=hints, stderr_tail=tail[-4096:])


def discard(jobs: Jobs, v: Validation) -> None:
    """Remove an upload whose validation ended: a bot entered was copied into the league."""
    remove_tree(jobs.folder / UPLOADS_DIR / v.upload)


def fail(jobs: Jobs, v: Validation, message: str, **fields: Any) -> None:
    jobs.set_validation(v.id, "failed", message=message, **fields)
    discard(jobs, v)
    jobs.add_event("validation", v.user, event_payload(jobs, v.id))
    log(f"validation {v.id} of {v.bot} failed: {message}")


def event_payload(jobs: Jobs, vid: int) -> dict[str, Any]:
    done = jobs.validation(vid)
    assert done is not None
    return {"event": "validation", **done.public(private=False)}


def enter(league: League, jobs: Jobs, v: Validation, more: int) -> None:
    """Enter a checked upload into the league (once: a version already entered, by a runner
    killed before it said so, is found by its content hash)."""
    folder = league.folder / v.folder
    try:
        version = content_hash({rel: f.data for rel, f in bot_files(folder).items()})
    except (LeagueError, OSError) as exc:
        fail(jobs, v, f"cannot read the upload: {exc}")
        return
    known = [e for e in league.entrants() if e.name == v.bot and e.version == version]
    entrant = known[0].id if known else None
    if entrant is None:
        try:
            # A version follows its bot's author (an admin may replace anyone's bot).
            author = next((e.author for e in league.entrants() if e.name == v.bot), v.user)
            entrant = league.submit(str(folder), author=author, check=False).entrant.id
        except LeagueError as exc:
            fail(jobs, v, shown_path(str(exc), folder))
            return
        if more > 0 and league.store.planned_matches() >= league.budget:
            league.extend(more)
    jobs.set_validation(v.id, "passed", entrant=entrant, message="entered into the league")
    discard(jobs, v)
    jobs.add_event("validation", v.user, event_payload(jobs, v.id))
    log(f"validation {v.id}: {v.bot} entered as entrant {entrant}")


# -- withdrawals and scrimmages ---------------------------------------------------------------


def withdrawals(league: League, jobs: Jobs) -> None:
    for action in jobs.pending_actions():
        try:
            live, cancelled = league.withdraw(action.bot)
        except LeagueError as exc:
            jobs.finish_action(action.id, False, str(exc))
            continue
        jobs.finish_action(
            action.id, True, f"withdrew {len(live)} version(s); {cancelled} matches cancelled"
        )


def scrimmages(league: League, jobs: Jobs, opts: Options, stop: threading.Event) -> None:
    for s in reversed(jobs.scrimmages(status="pending")):
        if stop.is_set():
            return
        play_scrimmage(league, jobs, s, opts)


def play_scrimmage(league: League, jobs: Jobs, s: Scrimmage, opts: Options) -> None:
    jobs.set_scrimmage(s.id, "running")
    try:
        folder = scrim_mod.create(league, s)
        with League.open(folder) as inner:
            play(inner, opts, scrim_mod.ScrimmagePlanner(inner, s))
            # The opponents are other authors' bots: their stderr is theirs.
            build_site(inner, folder / scrim_mod.SITE_DIR, stderr=False)
    except (ValueError, LeagueError, ArenaSetupError, BotError, WorkerLost) as exc:
        jobs.set_scrimmage(s.id, "failed", str(exc))
        return
    jobs.set_scrimmage(s.id, "done", f"{s.matches} matches played")


# -- the league -------------------------------------------------------------------------------


class ServerPlanner(LeaguePlanner):
    """The league's schedule, ended early when something waits in the queue or the server
    stops; re-renders the site every few seconds on the way."""

    def __init__(
        self, league: League, jobs: Jobs, stop: threading.Event, tick: Callable[[], None]
    ) -> None:
        super().__init__(league)
        self.jobs = jobs
        self.stop = stop
        self.tick = tick
        self.polled = time.monotonic()

    def after(self) -> list[Planned] | None:
        if self.stop.is_set():
            return None
        now = time.monotonic()
        if now - self.polled >= POLL:
            self.polled = now
            if self.jobs.waiting():
                return None
            self.tick()
        return super().after()


def play(league: League, opts: Options, planner: Planner) -> RunReport:
    """One run of the driver on the league's executor."""
    kind = ExecutorKind(opts.executor) if opts.executor else league.config.executor.kind
    if kind is ExecutorKind.DASK:
        from arena.run.cluster import run_league_dask  # optional extra

        scheduler = league.config.executor.scheduler or None
        return run_league_dask(
            league, scheduler, workers=opts.workers, progress=None, planner=planner
        )
    return run_league(league, opts.workers, progress=None, planner=planner)


class Renderer:
    """The site's render as a child process (:mod:`arena.server.render`), one at a time."""

    def __init__(self, folder: Path, site: Path) -> None:
        self.folder = folder
        self.site = site
        self.process: subprocess.Popen[bytes] | None = None

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, summary: bool) -> None:
        command = [sys.executable, "-m", "arena.server.render", str(self.folder), str(self.site)]
        self.process = subprocess.Popen(
            [*command, *(["--summary"] if summary else [])], stdin=subprocess.DEVNULL
        )

    def wait(self, timeout: float | None = None) -> None:
        if self.process is not None:
            try:
                code = self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                code = self.process.wait()
            if code:
                log(f"the site's render failed (exit code {code}); the last good pages stay")
            self.process = None


class Runner:
    """The rounds of the runner on one open league."""

    def __init__(self, league: League, jobs: Jobs, opts: Options, stop: threading.Event) -> None:
        self.league = league
        self.jobs = jobs
        self.opts = opts
        self.stop = stop
        self.rendered = 0.0
        self.state: tuple[object, ...] | None = None
        self.renderer = Renderer(league.folder, opts.site)

    def round(self) -> int:
        """One round; how many league matches it played."""
        withdrawals(self.league, self.jobs)
        for v in reversed(self.jobs.validations(status="running")):
            self.jobs.set_validation(v.id, "pending")  # a killed runner's check: again
        for v in reversed(self.jobs.validations(status="pending")):
            if self.stop.is_set():
                return 0
            validate(self.league, self.jobs, v)
        for v in reversed(self.jobs.validations(status="checked")):
            enter(self.league, self.jobs, v, self.opts.more)
        for s in self.jobs.scrimmages(status="running"):
            self.jobs.set_scrimmage(s.id, "pending")  # resumed from its folder
        scrimmages(self.league, self.jobs, self.opts, self.stop)
        if self.stop.is_set():
            return 0
        planner = ServerPlanner(self.league, self.jobs, self.stop, self.render_if_due)
        try:
            report = play(self.league, self.opts, planner)
        except WorkerLost as exc:
            log(f"{exc}; resuming")
            return 0
        except ArenaSetupError as exc:
            log(f"the arena cannot start a bot: {exc}; retrying after a pause")
            self.stop.wait(10.0)
            return 0
        self.render()
        self.settled()
        return report.played

    def render_if_due(self) -> None:
        if time.monotonic() - self.rendered >= SITE_EVERY:
            self.render()

    def render(self) -> None:
        """Start bringing the site up to date (:class:`Renderer`) if the league changed since
        the last render, unless one is still running (the next call catches up)."""
        state = (
            self.league.store.played_count(),
            self.league.rated_batches(),
            tuple((e.id, e.status, e.reason) for e in self.league.entrants()),
        )
        self.rendered = time.monotonic()
        if state == self.state or self.renderer.running():
            return
        summary = self.state is None or state[1:] != self.state[1:]
        self.renderer.start(summary)
        self.state = state

    def flush(self) -> None:
        """Wait until the site shows the league as it is now (for tests, and at the end)."""
        self.renderer.wait()
        self.render()
        self.renderer.wait()

    def settled(self) -> None:
        """Report each live version whose rating in a game has settled (sigma under the
        bound), once (the ``settled`` webhook)."""
        bound = self.opts.settled_sigma
        if bound <= 0:
            return
        ratings = self.league.load_ratings()
        entrants = {e.id: e for e in self.league.entrants() if e.status.live}
        for game in self.league.config.games:
            for s in ratings.standings(game.name):
                e = entrants.get(s.bot)
                if e is None or s.sigma >= bound or s.matches == 0:
                    continue
                if self.jobs.mark_settled(e.id, game.name):
                    self.jobs.add_event(
                        "settled",
                        e.author,
                        {
                            "event": "settled",
                            "bot": e.name,
                            "version": e.version[:12],
                            "entrant": e.id,
                            "game": game.name,
                            "mu": round(s.mu, 3),
                            "sigma": round(s.sigma, 3),
                            "conservative": round(s.conservative, 3),
                        },
                    )


@contextlib.contextmanager
def league_lock(folder: Path) -> Iterator[None]:
    """Hold the league's runner lock (waiting for a runner that is still stopping)."""
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def watch_parent(stop: threading.Event, fd: int) -> None:
    """Set ``stop`` when the pipe ``fd`` (the runner's stdin as it started) ends: the server is
    gone (or asks the runner to stop). Read with :func:`os.read`, not through ``sys.stdin``,
    whose lock a forked worker would inherit held (and hang closing its stdin)."""
    with contextlib.suppress(OSError):
        while os.read(fd, 1024):
            pass
    stop.set()


def detach_stdin() -> int:
    """The runner's stdin as a private descriptor; fd 0 becomes /dev/null for its children."""
    fd = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return fd


def run(opts: Options, stop: threading.Event) -> None:
    """Rounds until ``stop`` is set."""
    with league_lock(opts.folder), League.open(opts.folder) as league, Jobs(opts.folder) as jobs:
        runner = Runner(league, jobs, opts, stop)
        runner.render()
        try:
            rounds(runner, jobs, stop)
        finally:
            runner.renderer.wait(60.0)


def rounds(runner: Runner, jobs: Jobs, stop: threading.Event) -> None:
    """The runner's rounds until ``stop`` is set."""
    while not stop.is_set():
        try:
            played = runner.round()
        except Interrupted:
            break
        except Exception:  # the arena's own failure: logged; the server keeps serving
            log("a round failed; trying again in 10 s:\n" + traceback.format_exc())
            stop.wait(10.0)
            continue
        if not played and not jobs.waiting():
            stop.wait(POLL)


def parse(argv: list[str]) -> Options:
    parser = argparse.ArgumentParser(prog="arena.server.runner")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--site", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--settled-sigma", type=float, default=2.0)
    parser.add_argument("--more", type=int, default=200)
    parser.add_argument("--executor", default="")
    args = parser.parse_args(argv)
    return Options(
        args.folder, args.site, args.workers, args.settled_sigma, args.more, args.executor
    )


def main(argv: list[str] | None = None) -> int:
    opts = parse(sys.argv[1:] if argv is None else argv)
    stop = threading.Event()

    def hard_stop(signum: int, frame: object) -> None:
        stop.set()
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, hard_stop)
    signal.signal(signal.SIGINT, hard_stop)
    fd = detach_stdin()
    threading.Thread(target=watch_parent, args=(stop, fd), name="watch-parent", daemon=True).start()
    with contextlib.suppress(KeyboardInterrupt):
        run(opts, stop)
    log("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())

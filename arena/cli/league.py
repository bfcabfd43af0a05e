"""The league commands: ``arena league ...``, ``arena submit``, ``arena bots``, ``arena withdraw``.

Registered on the main group in :mod:`arena.cli`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

import click

from arena.cli.common import DEFAULT_ROOT, WORKERS, league_option, league_path, open_league
from arena.league.config import MAX_SEED, ExecutorKind, default_config
from arena.league.core import League, LeagueError
from arena.league.store import EntrantStatus, StoreError, version_label
from arena.terminal import describe_os_error, failure, printable_name, shown

DEMO_BOTS = (
    "bundled:random",
    "bundled:heuristic",
    "bundled:js-random",
    "builtin:random",
    "builtin:first",
)
"""The demo's entrants: the bundled bots (found wherever arena is installed) and the built-ins;
not the reference bot, whose search at the default time limits took the demo from about 20 s to
over 15 minutes (`bundled:reference` enters any league)."""


@click.group()
def league() -> None:
    """Leagues: a folder with league.toml, the submitted bots and a SQLite store."""


@league.command("init")
@click.argument("name")
@click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), default=1, show_default=True)
@click.option("--workers", type=WORKERS, default=2, show_default=True)
def init(name: str, seed: int, workers: int) -> None:
    """Create league NAME with a commented league.toml of sensible defaults."""
    folder = league_path(name)
    try:
        path = League.init(folder, default_config(seed, workers))
    except (LeagueError, StoreError) as exc:
        raise failure(exc) from None
    except OSError as exc:
        raise click.ClickException(
            f"cannot create the league in {folder}: {describe_os_error(exc)}"
        ) from None
    click.echo(f"created {path}; edit it, then: arena submit BOT --league {name}")


@league.command("run")
@click.argument("name")
@click.option("--workers", type=WORKERS, default=None, help="Override the config.")
@click.option("--quiet", is_flag=True, help="No progress line.")
@click.option(
    "--executor",
    type=click.Choice([kind.value for kind in ExecutorKind]),
    default=None,
    help="Where matches run (default: the config's executor.kind).",
)
@click.option(
    "--scheduler",
    metavar="ADDR",
    default=None,
    help="The Dask scheduler, e.g. tcp://host:8786 (with --executor dask).",
)
@click.option(
    "--more",
    type=click.IntRange(min=1, max=100_000_000),
    default=None,
    metavar="N",
    help="Play N more matches than are planned or budgeted now (past the stopping rule too).",
)
def run(
    name: str,
    workers: int | None,
    quiet: bool,
    executor: str | None,
    scheduler: str | None,
    more: int | None,
) -> None:
    """Play league NAME until its budget or stopping rule; resumes where a previous run stopped.

    With --more N it plays N matches beyond what is planned or budgeted now (past the stopping
    rule too), e.g. after a resubmission when the budget is spent.
    """
    with open_league(name) as lg:
        if more is not None:
            budget = lg.extend(more)
            click.echo(f"the league now plans up to {budget} matches", err=True)
        play(lg, workers, quiet, executor, scheduler)


def play(
    lg: League,
    workers: int | None,
    quiet: bool,
    executor: str | None = None,
    scheduler: str | None = None,
) -> None:
    if not any(e.active for e in lg.entrants()):
        raise click.ClickException(
            "the league has no active entrants (arena submit BOT --league L)"
        )
    # What plays matches, imported only by the commands that play (status and the other
    # readers start faster without it).
    import signal

    from arena.run.driver import Interrupted, WorkerLost
    from arena.run.local import run_league
    from arena.runtime.manifest import BotError
    from arena.runtime.sandbox import isolation_line, protect

    try:
        protect(lg.folder)  # under rlimits, a bot's own uid must not read the league's data
    except OSError as exc:
        click.echo(f"warning: cannot make {lg.folder} private: {exc.strerror}", err=True)
    for game, seats, bots in lg.crowded_tables():
        click.echo(
            f"note: {game} is played at {seats} seats but only {bots} active bot(s) play it:"
            " some bots fill two seats of a table (rated once per table, at their mean place)",
            err=True,
        )
    kind = ExecutorKind(executor) if executor else None
    dask = (
        kind or (ExecutorKind.DASK if scheduler else lg.config.executor.kind)
    ) is ExecutorKind.DASK
    line = isolation_line(lg.config.run_limits().sandbox.method)
    click.echo(line + (" (here; each Dask worker chooses its own)" if dask else ""), err=True)

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)  # `kill` stops as cleanly as Ctrl-C
    try:
        if dask:
            from arena.run.cluster import DaskError, run_league_dask  # optional extra

            try:
                report = run_league_dask(
                    lg, scheduler, workers=workers, progress=None if quiet else sys.stderr
                )
            except DaskError as exc:
                raise failure(exc) from None
        else:
            report = run_league(lg, workers, None if quiet else sys.stderr)
    except (Interrupted, WorkerLost) as exc:
        raise failure(exc) from None
    except BotError as exc:
        raise click.ClickException(
            f"an entrant cannot be started: {shown(exc)} (its files in the league's"
            " bots/ folder are missing or changed; withdraw it or submit it again)"
        ) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    click.echo(
        f"played {report.played} matches in {report.seconds:.1f}s "
        f"({report.rate:.1f}/s), {report.processes_started} bot processes started; "
        f"{lg.store.played_count()} in the league"
    )
    if report.stopped:
        click.echo(shown(report.stopped))


@league.command("status")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the standings as JSON.")
def status(name: str, as_json: bool) -> None:
    """Print the standings per game and overall."""
    with open_league(name, read_only=True) as lg:
        summary = lg.summary()
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    click.echo(render_standings(summary))


def version_text(row: Mapping[str, object]) -> str:
    """A version as people tell versions apart: its label and its content hash, ``v2
    (3f9a1c0b)``; the hash alone when the manifest states no version."""
    return version_label(shown(str(row.get("label") or "")), str(row["version"]))


def render_standings(summary: dict[str, object]) -> str:
    """The standings as plain text tables."""
    lines: list[str] = []
    state = "finished" if summary["finished"] else "in progress"
    if str(summary.get("stopped", "")).startswith("stopped"):
        state = shown(str(summary["stopped"]))  # not finished: it cannot go on (e.g. all suspended)
    lines.append(
        f"league {shown(summary['league'])}: {summary['matches_played']}/{summary['matches_planned']} "
        f"planned matches played, {summary['batches_rated']} batches rated ({state})"
    )
    games = summary["games"]
    assert isinstance(games, dict)
    for game, table in games.items():
        if table["ratings"]:
            lines.append("")
            lines.append(f"{game}: TrueSkill, ranked by mu - 3*sigma")
            lines.append(
                f"{'#':>3} {'tier':>4}  {'bot':<24} {'version':<22} {'rating':>7} {'mu':>7}"
                f" {'95% interval':>15} {'tables':>6} {'matches':>7} {'faults':>6}  status"
            )
            for i, r in enumerate(table["ratings"], 1):
                low, high = r["interval"]
                lines.append(
                    f"{i:>3} {r['tier']:>4}  {shown(r['name']):<24} {version_text(r):<22}"
                    f" {r['conservative']:>7.2f} {r['mu']:>7.2f} {low:>7.2f}-{high:<7.2f}"
                    f" {r['tables']:>6} {r['matches']:>7} {r['faulted_matches']:>6}"
                    f"  {shown(r['status'])}"
                )
            if len({r["tier"] for r in table["ratings"]}) < len(table["ratings"]):
                lines.append(
                    "     bots of one tier are not separated yet: their mu differ by less than "
                    "the uncertainty (95%)"
                )
        if table["solo"]:
            lines.append("")
            lines.append(f"{game}, solo: score table")
            lines.append(
                f"{'#':>3}  {'bot':<24} {'version':<22} {'matches':>7} {'mean':>9} {'±':>7}"
            )
            for i, r in enumerate(table["solo"], 1):
                lines.append(
                    f"{i:>3}  {shown(r['name']):<24} {version_text(r):<22} {r['matches']:>7}"
                    f" {r['mean_score']:>9.2f} {r['stderr']:>7.2f}"
                )
    ranked = summary["overall"]
    assert isinstance(ranked, list)
    if ranked:
        lines.append("")
        lines.append(
            "overall: mean of the per-game ratings (mu - 3*sigma) over every rated game of the "
            "league, a game a bot does not play counted as a newcomer's rating"
        )
        for i, r in enumerate(ranked, 1):
            lines.append(
                f"{i:>3}  {shown(r['name']):<24} {version_text(r):<22} {r['score']:>7.2f}  "
                f"(plays {r['games']} of {r['of']} games)  {shown(r['status'])}"
            )
    entrants = summary["entrants"]
    assert isinstance(entrants, list)
    held = [e for e in entrants if EntrantStatus(e["status"]).held]
    if held:
        lines.append("")
        for e in held:
            lines.append(
                f"{shown(e['name'])} {version_text(e)}: {shown(e['status'])}: {shown(e['reason'])}"
            )
    return "\n".join(lines)


@league.command("export")
@click.argument("name")
@click.option(
    "--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="File to write (default: stdout).",
)
def export(name: str, fmt: str, output: Path | None) -> None:
    """Write every match (JSON Lines: whole records; CSV: one row per seat)."""
    with open_league(name, read_only=True) as lg:
        if output is None:
            n = lg.export_jsonl(sys.stdout) if fmt == "jsonl" else lg.export_csv(sys.stdout)
            return
        try:
            with output.open("w", encoding="utf-8", newline="") as out:
                n = lg.export_jsonl(out) if fmt == "jsonl" else lg.export_csv(out)
        except OSError as exc:
            raise click.ClickException(
                f"cannot write the export: {describe_os_error(exc, output)}"
            ) from None
    click.echo(f"wrote {n} matches to {output}", err=True)


@league.command("demo")
@click.option(
    "--folder",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_ROOT / "demo",
    show_default=True,
)
@click.option("--workers", type=WORKERS, default=2, show_default=True)
@click.option(
    "--matches",
    type=click.IntRange(min=1),
    default=144,
    show_default=True,
    help="The match budget.",
)
@click.option("--fresh", is_flag=True, help="Start again: remove the folder first.")
def demo(folder: Path, workers: int, matches: int, fresh: bool) -> None:
    """A small league of the bundled bots across every game, its standings and leaderboard."""
    import shutil  # here, not at the top: league status starts faster without it

    if fresh and folder.exists():
        shutil.rmtree(folder)
    if not (folder / "league.toml").exists():
        config = default_config(seed=1, workers=workers)
        text_config = config.schedule.__class__(max_matches=matches)
        from dataclasses import replace

        League.init(folder, replace(config, schedule=text_config))
        with open_league(str(folder)) as lg:
            for bot in DEMO_BOTS:
                if bot == "bundled:js-random" and shutil.which("node") is None:
                    click.echo("skipping bundled:js-random: node is not installed", err=True)
                    continue
                try:
                    done = lg.submit(bot)
                except LeagueError as exc:
                    click.echo(f"skipping {bot}: {failure(exc).message}", err=True)
                    continue
                click.echo(
                    f"entered {shown(done.entrant.name)} ({shown(', '.join(done.entrant.games))})"
                )
    with open_league(str(folder)) as lg:
        play(lg, workers, False)
        click.echo()
        click.echo(render_standings(lg.summary()))
    click.echo(f"\nthe league is in {folder}/ (arena league status {folder})")
    from arena.site import build_site  # the site is the last room: imported only here

    site = folder.parent / f"{folder.name}-site"
    with open_league(str(folder)) as lg:
        report = build_site(lg, site, workers=workers)
    index = (site / "index.html").resolve()
    click.echo(
        f"the leaderboard ({report.pages} pages, rendered in {report.seconds:.1f}s): "
        f"open {index.as_uri()}"
    )


@click.command()
@click.argument("bot")
@click.option(
    "--league",
    "league_name",
    default=None,
    metavar="L",
    help="The league folder (a bare name means results/NAME).",
)
@click.option("--name", default=None, help="Enter under this name (default: the manifest's).")
@click.option("--author", default=None, help="The author (default: the manifest's).")
@click.option("--no-check", is_flag=True, help="Skip the conformance check (for trusted bots).")
@click.option(
    "--server", metavar="URL", default=None, help="Send BOT to an arena server instead of --league."
)
@click.option(
    "--token",
    envvar="ARENA_TOKEN",
    default=None,
    help="Your API token for --server ($ARENA_TOKEN).",
)
@click.option(
    "--wait", is_flag=True, help="With --server: follow the validation; exit 1 if not entered."
)
@click.option("--poll", type=click.FloatRange(min=0.01), default=2.0, hidden=True)
def submit(
    bot: str,
    league_name: str | None,
    name: str | None,
    author: str | None,
    no_check: bool,
    server: str | None,
    token: str | None,
    wait: bool,
    poll: float,
) -> None:
    """Check BOT, copy it into the league under its content hash, and enter it; or, with
    --server, send it to an arena server (which checks it and enters it if it passes)."""
    if server is not None:
        submit_to_server(bot, league_name, name, author, no_check, server, token, wait, poll)
        return
    if league_name is None:
        raise click.UsageError("Missing option '--league' (or give --server URL --token T).")
    given = click.get_current_context().get_parameter_source("token")
    if wait or given is click.core.ParameterSource.COMMANDLINE:
        raise click.UsageError("--token and --wait go with --server.")
    for text, hint in ((name, "--name"), (author, "--author")):
        if text is not None and not printable_name(text):
            raise click.BadParameter(
                f"{shown(repr(text))} holds a control, format or bidi character", param_hint=hint
            )
    with open_league(league_name) as lg:
        try:
            done = lg.submit(bot, name=name, author=author, check=not no_check)
        except LeagueError as exc:
            raise failure(exc) from None
    e = done.entrant
    checked = f"; checked in {', '.join(done.checked)}" if done.checked else ""
    click.echo(
        f"entered {shown(e.name)} version {version_text({'label': e.label, 'version': e.version})} by {shown(e.author or '?')} "
        f"for {shown(', '.join(e.games))}{checked}"
    )
    if done.replaced is not None:
        click.echo(
            f"it replaces version {version_text({'label': done.replaced.label, 'version': done.replaced.version})} (its results are kept)"
        )


def submit_to_server(
    bot: str,
    league_name: str | None,
    name: str | None,
    author: str | None,
    no_check: bool,
    server: str,
    token: str | None,
    wait: bool,
    poll: float,
) -> None:
    """``arena submit BOT --server URL --token T [--wait]`` (arena.server.client does it)."""
    if league_name is not None or name is not None or author is not None or no_check:
        raise click.UsageError(
            "--league, --name, --author and --no-check are for a local league: the server takes "
            "the name from bot.toml, the author from the token, and checks every bot"
        )
    if token is None:
        raise click.UsageError("--server needs --token T (or $ARENA_TOKEN): your API token")
    from arena.server.client import submit as send  # stdlib only; imported when used

    status = send(
        Path(bot), server, token, wait, click.echo, lambda text: click.echo(text, err=True), poll
    )
    click.get_current_context().exit(status)


@click.command()
@league_option
@click.option("--all", "show_all", is_flag=True, help="Include replaced versions.")
def bots(league_name: str, show_all: bool) -> None:
    """List the league's entrants."""
    with open_league(league_name, read_only=True) as lg:
        summary = lg.summary()
    rows = [e for e in summary["entrants"] if show_all or e["status"] != EntrantStatus.REPLACED]
    if not rows:
        click.echo("no entrants")
        return
    click.echo(
        f"{'id':>3}  {'name':<24} {'version':<22} {'author':<16} {'matches':>7} "
        f"{'faults':>6}  {'status':<9} games"
    )
    for e in rows:
        click.echo(
            f"{e['id']:>3}  {shown(e['name']):<24} {version_text(e):<22} "
            f"{shown(e['author'][:16]):<16} {e['matches']:>7} {e['faulted_matches']:>6}  "
            f"{shown(e['status']):<9} {shown(','.join(e['games']))}"
            + (f"  ({shown(e['reason'])})" if e["reason"] else "")
        )


@click.command()
@click.argument("name")
@league_option
def withdraw(name: str, league_name: str) -> None:
    """Withdraw bot NAME: it plays no new matches; its results are kept."""
    with open_league(league_name) as lg:
        try:
            gone, cancelled = lg.withdraw(name)
        except LeagueError as exc:
            raise failure(exc) from None
    click.echo(
        f"withdrew {shown(name)} ({len(gone)} version(s)); {cancelled} planned matches cancelled"
    )

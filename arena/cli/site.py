"""The site commands: ``arena leaderboard L --out DIR`` and ``arena serve L``.

Registered on the main group in :mod:`arena.cli`.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from arena.cli.common import WORKERS, league_path, open_league
from arena.league.config import MAX_SECONDS, MAX_WORKERS
from arena.runtime.sandbox import protect
from arena.site import build_site
from arena.site.build import MatchPages
from arena.terminal import Seconds, describe_os_error


def private_default(out: Path | None, target: Path) -> None:
    """The default site folder sits beside the league: private like it (a bot under the
    ``rlimits`` sandbox must not read other matches' records). A folder given with ``--out``
    is the operator's to share (a web server may need to read it)."""
    if out is None and target.is_dir():
        with contextlib.suppress(OSError):
            protect(target)


def default_out(name: str) -> Path:
    folder = league_path(name)
    return folder.parent / f"{folder.name}-site"


@click.command()
@click.argument("name", metavar="L")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to write the site (default: the league folder's name + '-site', beside it).",
)
@click.option("--full", is_flag=True, help="Forget the cache and render every page again.")
@click.option(
    "--workers",
    type=WORKERS,
    default=None,
    help="Processes rendering match pages [default: one per core].",
)
@click.option(
    "--matches",
    type=click.Choice([m.value for m in MatchPages]),
    default=MatchPages.RECENT.value,
    show_default=True,
    help="Which match pages to render: all, the recent ones the front pages list, or none "
    "(`arena serve` renders any match page when it is asked for).",
)
@click.option("--quiet", is_flag=True, help="No progress line.")
def leaderboard(
    name: str, out: Path | None, full: bool, workers: int | None, matches: str, quiet: bool
) -> None:
    """Render league L's leaderboard site (static HTML; works from file://)."""
    target = out or default_out(name)
    if workers is None:
        from arena.run.local import cpu_count

        workers = min(cpu_count(), MAX_WORKERS)

    def progress(n: int) -> None:
        if not quiet:
            click.echo(f"\r{n} match pages", nl=False, err=True)

    with open_league(name, read_only=True) as lg:
        try:
            report = build_site(
                lg,
                target,
                full=full,
                progress=progress,
                workers=workers,
                matches=MatchPages(matches),
            )
            private_default(out, target)
        except OSError as exc:
            raise click.ClickException(
                f"cannot write the site to {target} (choose another with --out): "
                + describe_os_error(exc, target)
            ) from None
    if not quiet and report.new_matches:
        click.echo("", err=True)
    click.echo(
        f"{'rendered' if report.full else 'updated'} {target}: {report.new_matches} new"
        f" matches, {report.match_pages} match pages ({matches}), {report.pages} pages written"
        f" in {report.seconds:.1f}s; open {target / 'index.html'}"
    )


@click.command()
@click.argument("name", metavar="L")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The site folder (default: the one `arena leaderboard L` writes, so its pages and "
    "cache are reused).",
)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option(
    "--interval",
    type=Seconds(min=0.2, max=MAX_SECONDS),
    default=5.0,
    show_default=True,
    help="Seconds between checks for new results.",
)
@click.option(
    "--matches",
    type=click.Choice([m.value for m in MatchPages]),
    default=MatchPages.NONE.value,
    show_default=True,
    help="Which match pages to render as results arrive; any other is rendered when it is "
    "asked for.",
)
def serve(name: str, out: Path | None, host: str, port: int, interval: float, matches: str) -> None:
    """Serve league L's site locally and re-render it when results change (match pages are
    rendered when they are asked for)."""
    from arena.site.serve import serve_site

    target = out or default_out(name)
    cached = (target / "index.html").exists()
    click.echo(
        f"bringing the site in {target} up to date"
        + (" (only what changed since it was rendered)" if cached else " (a first render)"),
        err=True,
    )

    def progress(n: int) -> None:
        click.echo(f"\r{n} match pages", nl=False, err=True)

    with open_league(name, read_only=True) as lg:
        report = build_site(
            lg,
            target,
            progress=progress,
            matches=MatchPages(matches),
            link_all=matches != MatchPages.ALL,
        )
    if report.new_matches:
        click.echo("", err=True)
    private_default(out, target)
    click.echo(f"site in {target} ({report.pages} pages written in {report.seconds:.1f}s)")
    try:
        serve_site(
            lambda: open_league(name, read_only=True),
            target,
            host,
            port,
            interval,
            sys.stderr,
            MatchPages(matches),
        )
    except OSError as exc:
        raise click.ClickException(
            f"cannot serve on {host}:{port}: {exc.strerror or exc} (choose another --port or --host)"
        ) from None

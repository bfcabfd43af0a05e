"""``arena server L``: the league's web server, with the league running in the background."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import click

from arena.cli.common import WORKERS, open_league
from arena.runtime.sandbox import protect

SITE_DIR = "site"
"""The rendered site the server serves, inside the league folder (private like it)."""


def start_runner(
    folder: Path, site: Path, workers: int, settled: float, more: int
) -> subprocess.Popen[bytes]:
    """The league runner (:mod:`arena.server.runner`) as a child process; it stops when its
    stdin closes (this process ended, however it ended)."""
    command = [
        sys.executable,
        "-m",
        "arena.server.runner",
        str(folder),
        "--site",
        str(site),
        "--workers",
        str(workers),
        "--settled-sigma",
        str(settled),
        "--more",
        str(more),
    ]
    return subprocess.Popen(command, stdin=subprocess.PIPE, env=os.environ.copy())


def stop_runner(runner: subprocess.Popen[bytes], grace: float = 60.0) -> None:
    """Ask the runner to stop after its matches in flight; kill it past ``grace`` seconds."""
    with contextlib.suppress(OSError):
        if runner.stdin is not None:
            runner.stdin.close()
    try:
        runner.wait(grace)
    except subprocess.TimeoutExpired:
        runner.terminate()
        try:
            runner.wait(10)
        except subprocess.TimeoutExpired:
            runner.kill()
            runner.wait()


@click.command()
@click.argument("league_name", metavar="L")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option(
    "--workers", type=WORKERS, default=None, help="Worker processes (default: the league's)."
)
@click.option(
    "--league/--no-league",
    "run_league",
    default=True,
    show_default=True,
    help="Run the league in the background (--no-league: serve only, e.g. with `arena league run` elsewhere).",
)
@click.option(
    "--settled-sigma",
    type=float,
    default=2.0,
    show_default=True,
    help="A version's rating has settled (the webhook) once its sigma is under this.",
)
@click.option(
    "--more",
    type=click.IntRange(min=0),
    default=200,
    show_default=True,
    help="Matches added to a spent budget when a new version enters (0: never).",
)
@click.option(
    "--proxy-headers/--no-proxy-headers",
    default=False,
    show_default=True,
    help="Trust X-Forwarded-For/-Proto from --forwarded-allow-ips (behind a reverse proxy).",
)
@click.option(
    "--forwarded-allow-ips",
    default="127.0.0.1",
    show_default=True,
    help="The proxies whose forwarded headers are trusted.",
)
def server(
    league_name: str,
    host: str,
    port: int,
    workers: int | None,
    run_league: bool,
    settled_sigma: float,
    more: int,
    proxy_headers: bool,
    forwarded_allow_ips: str,
) -> None:
    """Serve league L on the web: the leaderboard, the author pages (sign in, upload,
    validation, scrimmages, webhooks) and the JSON API (/api/v1), while the league plays in
    the background and takes new versions between batches. Authors are added with
    `arena user add L NAME`. HTTPS: put a reverse proxy in front (see SERVER.md)."""
    import uvicorn

    from arena.server.app import make_app
    from arena.server.context import Settings
    from arena.server.jobs import adopt

    with open_league(league_name) as lg:
        folder = lg.folder
        count = workers or lg.config.workers
    with contextlib.suppress(OSError):
        protect(folder)
    site = folder / SITE_DIR
    removed, adopted = adopt(folder)
    if removed or adopted:
        click.echo(
            f"uploads: {removed} half-made removed, {adopted} complete ones queued", err=True
        )
    settings = Settings(folder, site, settled_sigma=settled_sigma)
    runner = start_runner(folder, site, count, settled_sigma, more) if run_league else None
    click.echo(f"serving http://{host}:{port}/ (Ctrl-C stops)", err=True)
    try:
        uvicorn.run(
            make_app(settings),
            host=host,
            port=port,
            proxy_headers=proxy_headers,
            forwarded_allow_ips=forwarded_allow_ips,
            log_level="warning",
            access_log=False,
        )
    finally:
        if runner is not None:
            click.echo("stopping the league after the matches in flight...", err=True)
            stop_runner(runner)

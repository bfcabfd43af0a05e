"""``arena audit L``: replay every stored match of a league and check the store (see
:mod:`arena.league.audit`). Registered on the main group in :mod:`arena.cli`."""

from __future__ import annotations

import click

from arena.abtest.folder import AbTestError, placement, read_state
from arena.cli.common import open_league
from arena.league.audit import audit as run_audit
from arena.terminal import shown


@click.command("audit")
@click.argument("name")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Problems to print at most.",
)
def audit(name: str, limit: int) -> None:
    """Replay every stored match of league NAME through the rules and check its record.

    Exits with status 1 and lists the match ids if anything does not agree.
    """
    with open_league(name, read_only=True) as lg:
        try:
            test = read_state(lg.folder)
        except AbTestError as exc:
            raise click.ClickException(str(exc)) from None
        if test is not None:  # an A/B test plans its own blocks, with ids and seeds of their own
            click.echo(
                "an A/B-test folder: every record is replayed and checked against the test's"
                " blocks (ids, deals, seats)",
                err=True,
            )
        report = run_audit(lg, None if test is None else placement(*test))
    if report.ok:
        click.echo(
            f"audit: {report.matches} matches ({report.actions} actions) replayed; all agree"
        )
        return
    for problem in report.problems[:limit]:
        click.echo(shown(str(problem)), err=True)
    if len(report.problems) > limit:
        click.echo(f"... and {len(report.problems) - limit} more", err=True)
    bad = report.bad_matches()
    click.echo(
        f"audit: {report.matches} matches replayed; {len(report.problems)} problem(s)"
        f" in {len(bad)} match(es)" + (f": {shown(', '.join(bad[:20]))}" if bad else ""),
        err=True,
    )
    raise SystemExit(1)

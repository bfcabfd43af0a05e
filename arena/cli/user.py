"""``arena user ...``: the operator's side of a server's accounts (who may submit which bots).

Registered on the main group in :mod:`arena.cli`. The accounts live in the league folder's
``server.db`` (:mod:`arena.server.accounts`); these commands work while ``arena server`` runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from arena.cli.common import league_path
from arena.server.accounts import (
    SIGNUP_SECONDS,
    AccountError,
    Accounts,
    check_password_text,
    check_user_name,
)
from arena.terminal import failure, shown

league_argument = click.argument("league_name", metavar="L")


@contextmanager
def accounts(text: str) -> Iterator[Accounts]:
    """The accounts of the league ``text`` names (a league folder: it holds league.toml)."""
    folder = league_path(text)
    if not (folder / "league.toml").is_file():
        raise click.ClickException(f"{shown(str(folder))} is not a league (no league.toml)")
    try:
        acc = Accounts.open(folder)
    except OSError as exc:  # sqlite3.Error is not an OSError: that one is ours, and raises
        raise click.ClickException(f"cannot open {shown(str(folder))}/server.db: {exc}") from None
    with acc:
        try:
            yield acc
        except AccountError as exc:
            raise failure(exc) from None


def ask_password() -> str:
    """A new password, typed twice and hidden, asked again until it is long enough."""
    while True:
        text: str = click.prompt("password", hide_input=True, confirmation_prompt=True)
        try:
            return check_password_text(text)
        except AccountError as exc:
            click.echo(str(exc), err=True)


def signup_lines(name: str, token: str) -> list[str]:
    """How to use a sign-up token (printed once: it is not kept)."""
    days = SIGNUP_SECONDS // 86400
    return [
        f"{name}'s one-time sign-up token (valid {days} days, shown only now):",
        "",
        f"  {token}",
        "",
        f"{name} opens /account/signup on the server and sets a password with it; then signs",
        "in there, or makes an API token on the account page for `arena submit --server`.",
    ]


@click.group()
def user() -> None:
    """Accounts of a league's server (arena server L): who may submit and change which bots."""


@user.command()
@league_argument
@click.argument("name")
@click.option("--admin", is_flag=True, help="May change every bot and see every log.")
@click.option(
    "--password",
    "with_password",
    is_flag=True,
    help="Set a password now (asked twice, hidden) instead of printing a sign-up token.",
)
def add(league_name: str, name: str, admin: bool, with_password: bool) -> None:
    """Add user NAME to league L's server; print their one-time sign-up token."""
    with accounts(league_name) as acc:
        check_user_name(name)
        if acc.user(name) is not None:  # before asking for a password that would be wasted
            raise click.ClickException(f"there is a user {shown(name)} already")
        password = ask_password() if with_password else None
        token = acc.add_user(name, admin=admin, password=password)
    role = "admin" if admin else "author"
    click.echo(f"added {name} ({role})" + (" with a password" if password else ""))
    if token:
        click.echo()
        for line in signup_lines(name, token):
            click.echo(line)


@user.command(name="list")
@league_argument
def list_users(league_name: str) -> None:
    """List the users of league L's server, with their bots."""
    with accounts(league_name) as acc:
        rows = [(u, acc.bots_of(u)) for u in acc.users()]
    if not rows:
        click.echo("no users (add one: arena user add L NAME)")
        return
    click.echo(f"{'name':<32} {'role':<6} bots")
    for u, bots in rows:
        role = "admin" if u.admin else "author"
        click.echo(f"{u.name:<32} {role:<6} {shown(', '.join(bots)) or '-'}")


@user.command()
@league_argument
@click.argument("name")
def remove(league_name: str, name: str) -> None:
    """Remove user NAME: their sessions, tokens and webhooks end at once; their bots stay in
    the league, and only an admin may change them."""
    with accounts(league_name) as acc:
        acc.remove_user(name)
    click.echo(f"removed {name}")


@user.command()
@league_argument
@click.argument("name")
@click.option("--label", default="", help="A note on what the token is for.")
def token(league_name: str, name: str, label: str) -> None:
    """Print a new API token for NAME (for `arena submit --server URL --token T`)."""
    with accounts(league_name) as acc:
        found = acc.user(name)
        if found is None:
            raise click.ClickException(f"no user {shown(name)}")
        text = acc.new_token(found, label)
    click.echo(f"an API token for {found.name} (shown only now):")
    click.echo()
    click.echo(f"  {text}")
    click.echo()
    click.echo("use: arena submit ./my-bot --server URL --token T  (or set $ARENA_TOKEN)")


@user.command()
@league_argument
@click.argument("name")
def signup(league_name: str, name: str) -> None:
    """Print a new one-time sign-up token for NAME (a forgotten password, an expired token)."""
    with accounts(league_name) as acc:
        text = acc.new_signup(name)
        found = acc.user(name)
    assert found is not None
    for line in signup_lines(found.name, text):
        click.echo(line)

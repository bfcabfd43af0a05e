"""``arena kit GAME DIR``: a starter bot folder (see :mod:`arena.kit`)."""

from __future__ import annotations

from pathlib import Path

import click

from arena.kit import LANGS, KitError, write_kit
from arena.terminal import failure


@click.command()
@click.argument("game")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option(
    "--lang",
    type=click.Choice(LANGS),
    default="python",
    show_default=True,
    help="python: plumbing, a random policy and the game's rules as a forward model "
    "(rules/, with sample_world to guess hidden cards); js: plumbing and a random policy.",
)
def kit(game: str, folder: Path, lang: str) -> None:
    """Write a starter bot for GAME into FOLDER (new or empty): bot.toml, the protocol
    plumbing and a random policy to replace; then `arena check FOLDER` passes.

    \b
    Examples:
      arena kit take5 my-bot
      arena kit phase10 --lang js my-js-bot
    """
    try:
        written = write_kit(game, lang, folder)
    except KitError as exc:
        raise failure(exc) from None
    click.echo(f"wrote {len(written)} files into {folder}:")
    for path in written:
        click.echo(f"  {path}")
    click.echo(f"next: edit the policy in {folder}, then `arena check {folder}`")

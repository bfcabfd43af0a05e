"""The command line: a thin shell that parses, validates and calls the library."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

import click

from arena import __version__
from arena.games import GAMES, JSON, GameError, GameSpec, State, get_game
from arena.players import RandomPlayer, play_local


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
        shown = int(score) if float(score).is_integer() else score
        lines.append(f"{result.ranks[seat]:>5}  {seat:>4}  {names[seat]:<{width}}  {shown}")
    return "\n".join(lines)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """arena: leagues of card-game bots.

    Bots for Ten, Take 5 and Phase 10 speak JSON over stdin/stdout; the arena plays them against
    each other, rates them with TrueSkill and renders leaderboards.
    """


@main.command()
def games() -> None:
    """List the games, their seat ranges and their options."""
    for spec in GAMES.values():
        click.echo(f"{spec.name}: {spec.title}, {spec.min_seats}-{spec.max_seats} seats")
        click.echo(f"  {spec.summary}")
        click.echo(f"  rules: seeds/{spec.rules_file}")
        for option in spec.options:
            click.echo(f"  --option {option.describe()}")
        click.echo()


@main.command()
@click.argument("game")
@click.option("--seats", type=int, default=4, show_default=True, help="Number of seats.")
@click.option(
    "--seed",
    type=click.IntRange(min=0),
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
@click.option("--json", "as_json", is_flag=True, help="Print one JSON record per game.")
@click.option("--quiet", is_flag=True, help="Print only the final table.")
def play(
    game: str,
    seats: int,
    seed: int,
    count: int,
    options: tuple[str, ...],
    as_json: bool,
    quiet: bool,
) -> None:
    """Play GAME with in-process random players and print an account of it.

    Example: arena play take5 --seats 4 --seed 7
    """
    try:
        spec = get_game(game)
        spec.check_seats(seats)
    except GameError as exc:
        raise click.ClickException(str(exc)) from None
    chosen = parse_options(spec, options)
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


# -- leagues: the commands live in arena/cli_league.py ------------------------------------
from arena.cli_league import register  # noqa: E402

register(main)
# -- end of leagues ----------------------------------------------------------------------
from arena.cli_site import register as register_site  # noqa: E402

register_site(main)
# -- end of site ----------------------------------------------------------------------


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

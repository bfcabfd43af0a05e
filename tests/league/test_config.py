"""league.toml from one schema: every key's default, bounds, choices and types are checked as
declared, errors name the key, its value and what is allowed, and what init writes and the
README's table come from the same declarations."""

from __future__ import annotations

import dataclasses
import enum
import math
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arena.league.config import (
    GAME_KEYS,
    README_BEGIN,
    README_END,
    SCHEMA,
    SECTIONS,
    ConfigError,
    GameConfig,
    Key,
    LeagueConfig,
    config_text,
    default_config,
    keys_of,
    load_config,
    main,
    markdown_table,
    parse_config,
    readme_with_table,
    setting,
    shown,
    toml_value,
)

ROOT = Path(__file__).resolve().parents[2]


def base(kind: type) -> type | None:
    """The TOML type a key of type ``kind`` holds (a str enum holds text)."""
    return next((t for t in (bool, int, float, str) if issubclass(kind, t)), None)


SCALARS = [key for key in SCHEMA if base(key.kind) is not None]
NUMBERS = [key for key in SCALARS if key.kind in (int, float)]
GAME = "take5"
"""The game whose table carries the ``games.NAME`` keys in these tests."""


def placed(key: Key, value: object) -> dict[str, Any]:
    """Parsed TOML that sets ``key`` (and nothing else) to ``value``."""
    if key.section.startswith("games."):
        return {"games": {GAME: {key.name: value}}}
    return {key.section: {key.name: value}} if key.section else {key.name: value}


def read_back(key: Key, config: LeagueConfig) -> object:
    if key.section.startswith("games."):
        return getattr(config.game(GAME), key.name)
    return getattr(config.sections()[key.section], key.name)


def rejected(key: Key, value: object) -> str:
    """The message for ``value``; it must name the key, show the value and say what is allowed."""
    with pytest.raises(ConfigError) as caught:
        parse_config(placed(key, value))
    message = str(caught.value)
    path = key.path.replace("games.NAME", f"games.{GAME}")
    assert message.startswith(f"{path}: "), message
    assert shown(value) in message and key.allowed() in message, message
    return message


def accepted(key: Key, value: object) -> None:
    assert read_back(key, parse_config(placed(key, value))) == value


def test_the_schema_holds_every_key_once_and_in_the_files_order() -> None:
    paths = [key.path for key in SCHEMA]
    assert len(paths) == len(set(paths))
    assert paths[:2] == ["seed", "workers"] and paths[-1] == "executor.live_bots"
    assert {key.section for key in SCHEMA} == {*SECTIONS, "games.NAME"}
    assert all(key.help.strip() and key.name for key in SCHEMA)


@pytest.mark.parametrize("key", SCALARS, ids=lambda key: key.path)
def test_every_default_validates_and_is_the_dataclass_default(key: Key) -> None:
    assert key.check(key.default) == key.default
    assert type(key.check(key.default)) is key.kind
    assert toml_value(key.default) == toml_value(
        key.check(tomllib.loads(f"x = {toml_value(key.default)}")["x"])
    )
    assert read_back(key, default_config()) == key.default
    if key.kind is int:
        assert key.high is not None, "every whole number has a ceiling (SQLite's at most)"


@pytest.mark.parametrize(
    ("section", "cls"), [*SECTIONS.items(), ("games.NAME", GameConfig)], ids=repr
)
def test_each_fields_type_is_its_defaults(section: str, cls: type) -> None:
    declared = {f.name: f.type for f in dataclasses.fields(cls)}
    for key in keys_of(section, cls):
        assert declared[key.name] == type(key.default).__name__, key.path


def test_no_keys_is_the_default_config() -> None:
    assert parse_config({}) == default_config() == LeagueConfig(games=default_config().games)


@pytest.mark.parametrize("key", NUMBERS, ids=lambda key: key.path)
def test_each_bound_is_enforced_and_named(key: Key) -> None:
    whole = key.kind is int
    if key.low is not None:
        low = int(key.low) if whole else key.low
        if key.above:
            rejected(key, low)
            accepted(key, low + 1 if whole else math.nextafter(low, math.inf))
        else:
            accepted(key, low)
            rejected(key, low - 1 if whole else math.nextafter(low, -math.inf))
    if key.high is not None:
        high = int(key.high) if whole else key.high
        if key.below:
            rejected(key, high)
            accepted(key, high - 1 if whole else math.nextafter(high, -math.inf))
        else:
            accepted(key, high)
            rejected(key, high + 1 if whole else math.nextafter(high, math.inf))


def test_the_bounds_read_as_people_write_them() -> None:
    by_path = {key.path: key for key in SCHEMA}
    assert by_path["workers"].allowed() == "a whole number from 1 to 1024"
    assert by_path["limits.decision"].allowed() == "a number from 0.001 to 86400"
    assert by_path["rating.sigma"].allowed() == "a number above 0"
    assert by_path["rating.draw_probability"].allowed() == "a number of at least 0 and below 1"
    assert by_path["entrants.resubmit"].allowed() == '"new" or "carry"'
    message = rejected(by_path["schedule.chunk"], 0)
    assert message == "schedule.chunk: 0 is not a whole number from 1 to 100000"


WRONG_TYPES: dict[type, list[object]] = {
    bool: [1, 0, "true", 1.0],
    int: [1.5, 2.0, True, "1", float("nan"), [1]],
    float: [True, "1.0", float("nan"), float("inf"), -float("inf"), [1.0]],
    str: [1, True, ["local"], {"a": 1}],
}


@pytest.mark.parametrize("key", SCALARS, ids=lambda key: key.path)
def test_a_value_of_another_type_is_named(key: Key) -> None:
    for value in WRONG_TYPES[base(key.kind)]:
        rejected(key, value)


def test_choices_and_patterns() -> None:
    for key in SCALARS:
        for choice in key.options():
            accepted(key, choice)
        if key.options():
            message = rejected(key, "nope")
            assert all(toml_value(choice) in message for choice in key.options())
    scheduler = next(key for key in SCHEMA if key.path == "executor.scheduler")
    for good in ("", "tcp://10.0.0.1:8786", "host:1", "tls://h.example:65535"):
        accepted(scheduler, good)
    for bad in ("my laptop", "tcp://host", "host:port", "tcp://h:8786/x"):
        rejected(scheduler, bad)


NOT_TABLES = [3, "x", True, 1.5, [1], [{"decision": 1}]]


@pytest.mark.parametrize("section", [*(name for name in SECTIONS if name), "games"])
@pytest.mark.parametrize("value", NOT_TABLES, ids=repr)
def test_a_section_that_is_not_a_table_is_named(section: str, value: object) -> None:
    with pytest.raises(ConfigError, match=rf"^{section}: {re.escape(shown(value))} is not a table"):
        parse_config({section: value})


@pytest.mark.parametrize("value", NOT_TABLES, ids=repr)
def test_a_game_that_is_not_a_table_is_named(value: object) -> None:
    with pytest.raises(ConfigError, match=rf"^games\.{GAME}: {re.escape(shown(value))} is not a"):
        parse_config({"games": {GAME: value}})


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("limits = 3\n", "limits: 3 is not a table"),
        ("[games]\ntake5 = 1\n", "games.take5: 1 is not a table"),
        ("[[schedule]]\nchunk = 2\n", "schedule: [{ chunk = 2 }] is not a table"),
        ('executor = "dask"\n', 'executor: "dask" is not a table'),
        ("games = {}\n", "games: {} is not a table of one or more games"),
    ],
)
def test_a_file_with_a_section_that_is_not_a_table(tmp_path: Path, text: str, named: str) -> None:
    (tmp_path / "league.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert str(caught.value).startswith(f"{tmp_path / 'league.toml'}: {named}")


@pytest.mark.parametrize("section", list(SECTIONS))
def test_an_unknown_key_is_named_with_the_known_ones(section: str) -> None:
    data: dict[str, Any] = {section: {"nope": 1}} if section else {"nope": 1}
    with pytest.raises(ConfigError, match="unknown key") as caught:
        parse_config(data)
    message = str(caught.value)
    assert "nope" in message
    assert all(key.name in message for key in keys_of(section, SECTIONS[section]))
    with pytest.raises(ConfigError, match=rf"^games\.{GAME}: unknown key\(s\) nope"):
        parse_config({"games": {GAME: {"nope": 1}}})


def test_games_keep_their_checks() -> None:
    assert parse_config({"games": {GAME: {"seats": 3}}}).game(GAME).seats == (3,)
    assert parse_config({"games": {GAME: {"seats": [3, 5, 3]}}}).game(GAME).seats == (3, 5)
    with pytest.raises(ConfigError, match=r"^games\.take5\.seats: take5 is played by 2 to 10"):
        parse_config({"games": {GAME: {"seats": [11]}}})
    with pytest.raises(ConfigError, match=r'^games\.take5\.seats: \["4"\] is not a list'):
        parse_config({"games": {GAME: {"seats": ["4"]}}})
    with pytest.raises(ConfigError, match=r"^games\.take5\.options: 5 is not a table"):
        parse_config({"games": {GAME: {"options": 5}}})
    with pytest.raises(ConfigError, match=r"^games\.take5\.options: .*end_score"):
        parse_config({"games": {GAME: {"options": {"end_score": -5}}}})
    with pytest.raises(ConfigError, match="did you mean 'take5'"):
        parse_config({"games": {"take-5": {}}})


# -- what init writes ----------------------------------------------------------------------


def test_inits_file_reads_back_to_the_defaults() -> None:
    text = config_text(default_config())
    assert parse_config(tomllib.loads(text)) == default_config()


def test_inits_file_has_every_key_with_a_comment() -> None:
    text = config_text(default_config())
    data = tomllib.loads(text)
    written: dict[str, str] = {}
    section, above = "", ""
    for line in text.splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        elif " = " in line and not line.startswith("#"):
            written[f"{section}.{line.split(' = ')[0]}".lstrip(".")] = above
        above = line
    for key in SCALARS:
        if key.section.startswith("games."):
            continue
        assert key.name in (data[key.section] if key.section else data), key.path
        assert written[key.path].startswith("# "), f"{key.path} has no comment"
    for game in default_config().games:
        assert set(data["games"][game.name]) == {"seats", "options"}
    for key in GAME_KEYS:
        assert f"# {key.name}: " in text


def unusual(key: Key) -> object:
    """A value of ``key`` other than its default, inside its range."""
    if key.options():
        return next(choice for choice in key.options() if choice != key.default)
    if key.kind is bool:
        return not key.default
    if key.kind is str:
        return "tcp://example.org:8786" if key.pattern is not None else "/srv/league"
    if key.kind is int:
        return int(key.high if key.high is not None else 7)
    low = key.low or 0.0
    return low + (0.25 if key.high is None else (key.high - low) / 4)


def test_a_config_with_every_key_changed_reads_back() -> None:
    sections: dict[str, dict[str, object]] = {name: {} for name in SECTIONS}
    for key in SCALARS:
        if not key.section.startswith("games."):
            sections[key.section][key.name] = unusual(key)
    data: dict[str, Any] = {**sections.pop(""), **sections}
    data["games"] = {
        "ten": {"seats": [1, 3], "higher_is_better": False, "options": {"start_tokens": 3}},
        "take5": {"seats": [2, 10], "options": {"end_score": 80}},
    }
    config = parse_config(data)
    assert config != default_config()
    for key in SCALARS:
        if not key.section.startswith("games."):
            assert read_back(key, config) == unusual(key), key.path
    assert parse_config(tomllib.loads(config_text(config))) == config
    assert config.game("ten") == GameConfig("ten", (1, 3), config.game("ten").options, False)


# -- the README's table --------------------------------------------------------------------


def test_the_readme_table_is_the_generated_one() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert README_BEGIN in readme and README_END in readme
    assert readme_with_table(readme) == readme, (
        "README.md's table of league.toml keys is stale: "
        "python -m arena.league.config --readme README.md"
    )


def test_the_table_has_a_row_per_key() -> None:
    table = markdown_table()
    for key in SCHEMA:
        assert f"| `{key.path}` | `{toml_value(key.default)}` | {key.allowed()} |" in table


def test_the_module_prints_and_rewrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--markdown"]) == 0
    assert capsys.readouterr().out == markdown_table()
    assert main(["--toml"]) == 0
    assert parse_config(tomllib.loads(capsys.readouterr().out)) == default_config()
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{README_BEGIN}| stale |\n{README_END}\nafter\n", encoding="utf-8")
    assert main(["--readme", str(readme)]) == 0
    assert readme.read_text() == f"# x\n\n{README_BEGIN}{markdown_table()}{README_END}\nafter\n"


# -- the schema machinery ------------------------------------------------------------------


class Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass(frozen=True)
class Paint:
    colour: Colour = setting(Colour.RED, "The colour.")
    coats: int = setting(1, "How many coats.", low=1, high=3)


def test_a_key_whose_default_is_a_string_enum_takes_its_values() -> None:
    colour, coats = keys_of("paint", Paint)
    assert (colour.path, coats.path) == ("paint.colour", "paint.coats")
    assert colour.check("blue") is Colour.BLUE
    assert colour.options() == ("red", "blue") and colour.allowed() == '"red" or "blue"'
    with pytest.raises(ConfigError, match=r'^paint\.colour: "green" is not "red" or "blue"$'):
        colour.check("green")
    with pytest.raises(ConfigError, match=r"^paint\.coats: 4 is not a whole number from 1 to 3$"):
        coats.check(4)
    assert toml_value(Colour.BLUE) == '"blue"' and Paint() == Paint(Colour.RED, 1)

"""The [executor] section of league.toml: written by init, read back, checked."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from arena.league.config import ConfigError, Executor, config_text, default_config, parse_config


def test_init_writes_the_executor_section_and_it_reads_back() -> None:
    text = config_text(default_config())
    assert "[executor]" in text and "--executor dask --scheduler" in text
    config = parse_config(tomllib.loads(text))
    assert config.executor == Executor()
    assert config == default_config()


def test_executor_keys_are_read_and_checked(tmp_path: Path) -> None:
    config = parse_config(
        {"executor": {"kind": "dask", "scheduler": "tcp://h:8786", "bots": "shared", "chunk": 8}}
    )
    assert config.executor == Executor("dask", "tcp://h:8786", "shared", "", 8)
    for bad in ({"kind": "spark"}, {"bots": "ftp"}, {"chunk": -1}, {"sheduler": "x"}):
        with pytest.raises(ConfigError, match="executor"):
            parse_config({"executor": bad})


def test_the_executor_kind_is_an_enum() -> None:
    from arena.league.config import ExecutorKind

    assert default_config().executor.kind is ExecutorKind.LOCAL
    assert parse_config({"executor": {"kind": "dask"}}).executor.kind is ExecutorKind.DASK
    with pytest.raises(ConfigError, match=r"executor\.kind"):
        parse_config({"executor": {"kind": 3}})

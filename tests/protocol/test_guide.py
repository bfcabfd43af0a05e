"""The minimal bots in protocol/WRITING_A_BOT.md work as written."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from arena.match import MatchSpec, run_match
from arena.runtime.manifest import load_bot
from arena.runtime.pool import BotPool

pytestmark = pytest.mark.timeout(60)

GUIDE = Path(__file__).resolve().parents[2] / "protocol" / "WRITING_A_BOT.md"


def block(language: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(), re.S)
    return str(blocks[0])


@pytest.mark.parametrize(
    ("language", "file", "program"), [("python", "bot.py", "python3"), ("js", "bot.js", "node")]
)
def test_the_guides_minimal_bot_plays(
    tmp_path: Path, language: str, file: str, program: str
) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    code = block(language)
    assert len(code.strip().splitlines()) <= 25
    (tmp_path / file).write_text(code)
    (tmp_path / "bot.toml").write_text(
        f'name = "guide-{language}"\ncommand = ["{program}", "{file}"]\ngames = ["take5"]\n'
    )
    tmp_path.chmod(0o755)  # the sandbox may run the bot under a uid of its own
    bot = load_bot(str(tmp_path))
    with BotPool() as pool:
        for k in range(2):
            record = run_match(
                MatchSpec(f"guide-{k}", "take5", k, (bot, load_bot("builtin:random"))), pool
            )
            assert not record.faults, record.faults
        assert pool.started == 1

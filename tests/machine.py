"""What this machine can run, asked once per test session, for the tests that skip without it.

A test that plays real bot processes asks for the ``process_bots`` fixture (tests/conftest.py):
where no bot process can be started here, as a league starts one (the sandbox in force, the
``python3`` of the system's PATH, a uid of its own when run as root), it is skipped, with the
reason, instead of failing, or, worse, passing on faults that were only the machine's.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

from arena.errors import ArenaSetupError
from arena.runtime.botproc import Fault, RunLimits, TimeLimits
from arena.runtime.manifest import BotError, load_bot
from arena.runtime.pool import BotPool
from arena.runtime.scratch import remove_tree

PROBE_BOT = """\
import json, sys
for line in sys.stdin:
    if json.loads(line)["type"] == "hello":
        print(json.dumps({"name": "probe"}), flush=True)
    else:
        break
"""
PROBE_MANIFEST = 'name = "probe"\ncommand = ["python3", "bot.py"]\ngames = ["take5"]\n'


@functools.cache
def why_no_process_bots() -> str | None:
    """None if a bot process starts and answers ``hello`` here, else why not (probed once)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-probe-bot-", dir="/tmp"))
    try:
        folder.chmod(0o755)  # the bot's own uid must reach it
        (folder / "bot.py").write_text(PROBE_BOT)
        (folder / "bot.toml").write_text(PROBE_MANIFEST)
        limits = RunLimits(time=TimeLimits(startup=30.0))
        with BotPool(limits) as pool:
            got = pool.get(load_bot(str(folder)))
        if isinstance(got, Fault):
            return f"a bot process cannot start on this machine: {got.kind.value}: {got.message}"
        return None
    except (ArenaSetupError, BotError) as exc:
        return f"the arena cannot start bot processes on this machine: {exc}"
    finally:
        remove_tree(folder)

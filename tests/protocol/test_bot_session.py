"""A bot process runs in a process group of its own, without a controlling terminal, in the
arena's session (issue 15: a session of its own put it in a scheduler group of its own, and on a
busy machine every message then waited for the CPU)."""

from __future__ import annotations

import json
import os
import pty
import select
import sys
import time
from pathlib import Path

PROBE = """
import json, os, sys
try:
    os.close(os.open("/dev/tty", os.O_RDWR))
    tty = True
except OSError:
    tty = False
print(json.dumps({"pid": os.getpid(), "sid": os.getsid(0), "pgid": os.getpgrp(), "tty": tty}))
"""

STARTER = """
import json, os, sys, time
from pathlib import Path
from arena.runtime.botproc import ProcessTransport
from arena.runtime.sandbox import Limits, confine
scratch = Path(sys.argv[2])
confined = confine([sys.executable, sys.argv[1]], scratch, scratch, Limits(method="none"))
transport = ProcessTransport(confined, 1 << 16, 1 << 12)
deadline = time.monotonic() + 20
while not transport.buffer.lines and time.monotonic() < deadline:
    transport.pump()
    time.sleep(0.01)
line = transport.buffer.lines.popleft()[0].decode()
transport.close(1.0)
has_tty = True
try:
    os.close(os.open("/dev/tty", os.O_RDWR))
except OSError:
    has_tty = False
print("RESULT", json.dumps({"sid": os.getsid(0), "tty": has_tty, "bot": json.loads(line)}))
"""


def test_a_bot_is_in_a_group_of_its_own_with_no_terminal_in_the_arenas_session(
    tmp_path: Path,
) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    pid, fd = pty.fork()  # the child leads a session whose controlling terminal is the pty
    if pid == 0:  # pragma: no cover (the child)
        os.execve(sys.executable, [sys.executable, "-c", STARTER, str(probe), str(scratch)], env)
    output = b""
    deadline = time.monotonic() + 60
    while b"RESULT" not in output or not output.endswith(b"\n"):
        assert time.monotonic() < deadline, output
        if select.select([fd], [], [], 1)[0]:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    line = next(x for x in output.decode().splitlines() if x.startswith("RESULT"))
    seen = json.loads(line.removeprefix("RESULT "))
    bot = seen["bot"]
    assert seen["tty"], "the arena had the pty as its terminal"
    assert bot["pgid"] == bot["pid"], "the bot leads a process group of its own"
    assert bot["sid"] == seen["sid"] == pid, "the bot stays in the arena's session"
    assert not bot["tty"], "the bot has no controlling terminal"

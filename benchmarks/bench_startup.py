"""Start-up: how long the ``arena`` command takes to start and answer (issue 15: ``arena
--version`` and ``arena league status`` in at most 100 ms).

Each command is run ``--runs`` times as a user runs it, through the installed ``arena`` script
beside this Python (or ``python -m arena`` if there is none); the wall time from start to exit
and the CPU time of the process (user + system, from ``wait4``) are taken for each, and the
medians reported. Side by side in the same run, the references: ``python -c pass`` (the
interpreter alone) and ``python -c "import click"`` (the command-line library every command
needs). The commands run with Python's bytecode caches, as an installed package has them (the
first run of each, not counted, writes them if missing). ``league status`` reads a small league made for the run (8 entrants, a few matches
played with in-process bots).

The commands run interleaved (one run of each in turn, ``--runs`` rounds), so that a machine
getting slower or faster weighs on all alike. ``--against SCRIPT`` adds the same two judged
commands run by another install's ``arena`` script (an older build in its own venv, say), with
the ratio of this build's median to it.

    python -m benchmarks.bench_startup [--runs 20] [--league DIR] [--against OTHER/bin/arena]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena import native
from arena.league.config import default_config
from arena.league.core import League
from arena.run.local import run_league

TARGET_MS = 100.0
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""As an install runs: with bytecode caches (written by the first, warm-up run if missing)."""


def arena_command() -> list[str]:
    script = Path(sys.executable).parent / "arena"
    if script.is_file():
        return [str(script)]
    found = shutil.which("arena")
    return [found] if found else [sys.executable, "-m", "arena"]


def timed(command: list[str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one run of ``command``, its output discarded."""
    began = time.perf_counter()
    child = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=CHILD_ENV
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {child.returncode}")
    return wall * 1e3, (usage.ru_utime + usage.ru_stime) * 1e3


def interleaved(commands: list[list[str]], runs: int) -> list[tuple[float, float]]:
    """(median wall ms, median CPU ms) of each command, run in turn ``runs`` times."""
    for command in commands:
        timed(command)  # the first run warms the file cache and writes the bytecode caches
    samples: list[list[tuple[float, float]]] = [[] for _ in commands]
    for _ in range(runs):
        for taken, command in zip(samples, commands, strict=True):
            taken.append(timed(command))
    return [
        (statistics.median(s[0] for s in taken), statistics.median(s[1] for s in taken))
        for taken in samples
    ]


def small_league(folder: Path) -> Path:
    League.init(folder, default_config(seed=3))
    with League.open(folder) as lg:
        for n in range(8):
            lg.submit(["builtin:random", "builtin:first"][n % 2], name=f"bot{n}", check=False)
        run_league(lg, 1, progress=None, max_new=24)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--league", type=Path, default=None, help="a league for league status")
    parser.add_argument(
        "--against", type=Path, default=None, help="another install's arena script, side by side"
    )
    args = parser.parse_args()
    print(native.describe())
    arena = arena_command()
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        league = args.league or small_league(Path(tmp) / "league")
        rows = [
            ("python -c pass", [sys.executable, "-c", "pass"], False),
            ("python -c 'import click'", [sys.executable, "-c", "import click"], False),
            ("arena --version", [*arena, "--version"], True),
            ("arena league status", [*arena, "league", "status", str(league)], True),
            ("arena --help", [*arena, "--help"], False),
        ]
        pairs: list[tuple[int, int]] = []  # (this build's row, the other install's row)
        if args.against is not None:
            for n, (label, command, judged) in enumerate(list(rows)):
                if judged:
                    pairs.append((n, len(rows)))
                    rows.append(
                        (f"against: {label}", [str(args.against), *command[len(arena) :]], False)
                    )
        print(f"{'command':<29} {'wall ms':>8} {'CPU ms':>8}  (medians of {args.runs} runs)")
        figures = interleaved([command for _, command, _ in rows], args.runs)
        base = figures[0][0]
        for (label, _, judged), (wall, cpu) in zip(rows, figures, strict=True):
            verdict = ""
            if judged:
                verdict = (
                    f"  target <= {TARGET_MS:.0f} ms: {'met' if wall <= TARGET_MS else 'NOT met'}"
                )
            print(f"{label:<29} {wall:>8.1f} {cpu:>8.1f}  {wall / base:4.1f}x python{verdict}")
        for this, other in pairs:
            ratio = figures[this][0] / figures[other][0]
            print(f"{rows[this][0]}: this build / against {ratio:.3f} (wall)")


if __name__ == "__main__":
    main()

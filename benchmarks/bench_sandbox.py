"""Start-up cost of the sandbox: a child that answers one JSON line, with and without it.

Starts a Python bot (and a node bot, where node is installed) the way the bot runner does
(``confine`` then ``Popen`` in a new session), sends one JSON line, reads the answer and reaps
the child. Methods are interleaved so that the machine's noise falls on all of them alike; the
table gives the median per method, the time added to the unconfined start, and the ratio.

    python -m benchmarks.bench_sandbox [--runs 21]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.runtime.sandbox import Limits, Method, SandboxUnavailable, confine

PYTHON_BOT = "import sys, json; json.loads(sys.stdin.readline()); print(json.dumps({'move': 1}))"
NODE_BOT = (
    "process.stdin.once('data', d => { JSON.parse(d); console.log(JSON.stringify({move: 1})); "
    "process.exit(0); })"
)


def one_start(argv: list[str], bot_dir: Path, scratch: Path, method: Method) -> float:
    """Seconds from confine to the first answer line and the child reaped."""
    began = time.perf_counter()
    c = confine(argv, bot_dir, scratch, Limits(method=method))
    proc = subprocess.Popen(
        c.argv,
        cwd=c.cwd,
        env=c.env,
        preexec_fn=c.preexec_fn,
        pass_fds=c.pass_fds,
        start_new_session=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = proc.communicate(b'{"state": 0}\n', timeout=30)
    elapsed = time.perf_counter() - began
    if b"move" not in out:
        raise RuntimeError(f"{method}: no answer (rc={proc.returncode}): {err.decode()[-500:]}")
    return elapsed


def usable(method: Method, argv: list[str], bot_dir: Path, scratch: Path) -> bool:
    try:
        one_start(argv, bot_dir, scratch, method)
    except (SandboxUnavailable, RuntimeError, OSError) as exc:
        print(f"# {method} skipped: {exc}", file=sys.stderr)
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()

    bots = {"python": [sys.executable, "-c", PYTHON_BOT]}
    if shutil.which("node"):
        bots["node"] = ["node", "-e", NODE_BOT]
    methods: list[Method] = ["none", "rlimits", "unshare", "bubblewrap"]

    with tempfile.TemporaryDirectory() as tmp:
        bot_dir, scratch = Path(tmp, "bot"), Path(tmp, "scratch")
        bot_dir.mkdir()
        scratch.mkdir()
        bot_dir.chmod(0o755)
        print(f"{'bot':8} {'method':11} {'median ms':>10} {'added ms':>9} {'ratio':>6}")
        for name, argv in bots.items():
            runnable = [m for m in methods if usable(m, argv, bot_dir, scratch)]
            times: dict[Method, list[float]] = {m: [] for m in runnable}
            for _ in range(args.runs):
                for method in runnable:
                    times[method].append(one_start(argv, bot_dir, scratch, method))
            base = statistics.median(times["none"])
            for method in runnable:
                med = statistics.median(times[method])
                print(
                    f"{name:8} {method:11} {med * 1e3:10.1f} {(med - base) * 1e3:9.1f}"
                    f" {med / base:6.2f}"
                )


if __name__ == "__main__":
    main()

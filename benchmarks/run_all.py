"""Every benchmark of the project in one command, and the report: ``benchmarks/REPORT.md``.

Each benchmark runs as a subprocess with its own command line (as a user would run it), one
after another so that they do not compete for the cores; its output is kept whole in the report,
and its headline figures are picked out into the tables at the top. A benchmark that is not in
this checkout (``bench_site`` lives on the ``site`` branch) or needs a missing package
(``bench_dask`` needs ``distributed``) is listed as skipped, with the reason.

    python -m benchmarks [--quick] [--only take5 dask ...] [--output benchmarks/REPORT.md]

``--quick`` runs every benchmark small (a few minutes in all on two cores): the figures are
rough, and the report says so.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from arena import native

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "benchmarks" / "REPORT.md"


@dataclass(frozen=True)
class Bench:
    name: str
    module: str
    what: str
    quick: tuple[str, ...]
    full: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    """Python packages it imports beyond arena's own dependencies."""
    programs: tuple[str, ...] = ()
    """Programs it runs (paths) beyond Python."""


BENCHES = (
    Bench(
        "take5",
        "bench_take5",
        "Take 5 engine: games/s per seat count (in-process random players)",
        ("--runs", "1", "--seconds", "0.3"),
    ),
    Bench(
        "ten",
        "bench_ten",
        "Ten engine: games/s per seat count",
        ("--games", "20", "--runs", "1"),
    ),
    Bench(
        "phase10",
        "bench_phase10",
        "Phase 10 engine: games/s per seat count, legal-list sizes",
        ("--games", "2", "--runs", "1", "--legal-games", "2"),
    ),
    Bench(
        "protocol",
        "bench_protocol",
        "Protocol overhead per decision vs the raw pipe round trip",
        ("--matches", "10", "--batches", "3", "--batch-matches", "5"),
    ),
    Bench(
        "loop",
        "bench_loop",
        "Match loop overheads: run_match in-process vs the plain loop, Ten observation vs a "
        "rules step, arena play with 4 stdio bots vs a bare loop",
        ("--runs", "3", "--seconds", "0.2", "--play-blocks", "6", "--play-games", "5"),
    ),
    Bench(
        "startup",
        "bench_startup",
        "Start-up: arena --version and arena league status beside python -c pass",
        ("--runs", "5"),
    ),
    Bench(
        "sandbox",
        "bench_sandbox",
        "Sandbox start-up cost per method",
        ("--runs", "3"),
    ),
    Bench(
        "usage",
        "bench_usage",
        "Usage sampler: one pass over /proc, and the sampler thread's share of a core",
        ("--runs", "50", "--seconds", "1"),
    ),
    Bench(
        "league",
        "bench_league",
        "League throughput, local executor: matches/s with 1 and 2 workers",
        ("--matches", "60", "--repeats", "1", "--bots", "builtin"),
    ),
    Bench(
        "dask",
        "bench_dask",
        "League throughput: local executor vs Dask LocalCluster, same league, per worker count",
        ("--matches", "80", "--repeats", "1", "--workers", "1", "2", "--bots", "builtin"),
        needs=("distributed",),
    ),
    Bench(
        "adaptive",
        "bench_adaptive",
        "Ranking quality: matches until the ranking is right, adaptive vs uniform",
        ("--leagues", "2", "--budget", "300"),
    ),
    Bench(
        "rating",
        "bench_rating",
        "Rating: us per free-for-all update, trueskill vs ffa; the parent's CPU per match",
        ("--calls", "300", "--repeats", "3", "--matches", "400"),
    ),
    Bench(
        "records",
        "bench_records",
        "Stored match records: bytes per match (JSON vs compressed) and the parent's cost per record",
        ("--matches", "10"),
    ),
    Bench(
        "scale",
        "bench_scale",
        "Big leagues: memory (arena + bots) and rate with 8 and 100 entrants, live bots capped",
        ("--entrants", "8", "30", "--matches", "150"),
        ("--matches", "2000", "--repeats", "2"),
    ),
    Bench(
        "sprt",
        "bench_sprt",
        "A/B test (GSPRT): false positives, power, blocks to a verdict, duplicate-block variance",
        ("--seats", "3", "4", "--pool", "300", "--tests", "200", "--real", "take5"),
    ),
    Bench(
        "reference",
        "bench_reference",
        "Reference bot (Take 5): win rate vs 3 random and vs 3 heuristics, ms per decision",
        ("--games", "20", "--cpu-games", "4"),
    ),
    Bench(
        "reference_phase10",
        "bench_reference_phase10",
        "Reference bot (Phase 10): win rate vs 2 heuristics and vs 2 random, ms per decision",
        ("--games", "6", "--random-games", "3"),
        ("--games", "100", "--random-games", "20"),  # about 25 min on 2 loaded cores
    ),
    Bench(
        "reference-league",
        "bench_reference_league",
        "Reference bots in a league of the bundled bots: first in each game they search, "
        "conservative rating above every other mean",
        ("--matches", "48", "--games", "take5"),
    ),
    Bench(
        "reference_ten",
        "bench_reference_ten",
        "Reference bot (Ten): win rate vs 2 heuristics and vs 2 random, ms per decision",
        ("--games", "12", "--random-games", "6"),
    ),
    Bench(
        "site",
        "bench_site",
        "Leaderboard rendering: full and incremental site builds",
        ("--sizes", "1000", "--new", "50"),
        needs=("jinja2",),
    ),
    Bench(
        "viewer",
        "bench_viewer",
        "Match pages in Chromium: first frame and seeks, the record replayed by the game's model "
        "vs the Python viewer's frames",
        ("--seeds", "2", "--loads", "1"),
        needs=("jinja2",),
        programs=("/usr/bin/chromium",),
    ),
    Bench(
        "server",
        "bench_server",
        "Web server under load: requests/s and p99 while the league plays; league rate vs alone",
        ("--seconds", "10", "--clients", "4", "--matches", "100", "--rate", "200"),
        needs=("starlette", "uvicorn"),
    ),
)


@dataclass
class Outcome:
    bench: Bench
    command: list[str]
    status: str
    """ok, failed (exit code), timeout, or skipped."""
    seconds: float = 0.0
    output: str = ""
    note: str = ""
    headline: list[str] = field(default_factory=list)


def missing(bench: Bench) -> str:
    if not (ROOT / "benchmarks" / f"{bench.module}.py").is_file():
        return f"benchmarks/{bench.module}.py is not in this checkout"
    for package in bench.needs:
        if importlib.util.find_spec(package) is None:
            return f"needs the {package!r} package"
    for program in bench.programs:
        if not Path(program).exists():
            return f"needs {program}"
    return ""


def run(bench: Bench, quick: bool, timeout: float) -> Outcome:
    command = [sys.executable, "-m", f"benchmarks.{bench.module}"]
    command += list(bench.quick if quick else bench.full)
    why = missing(bench)
    if why:
        return Outcome(bench, command, "skipped", note=why)
    print(f"== {bench.name}: {' '.join(command[1:])}", file=sys.stderr, flush=True)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    began = time.monotonic()
    try:
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout if isinstance(exc.stdout, str) else (exc.stdout or b"").decode()
        return Outcome(
            bench, command, "timeout", time.monotonic() - began, out, f"> {timeout:.0f}s"
        )
    seconds = time.monotonic() - began
    # Dask logs every worker start and stop on stderr; keep only what is not routine.
    err = "\n".join(
        line
        for line in done.stderr.splitlines()
        if " - INFO - " not in line and "distributed." not in line
    )
    output = done.stdout + (f"\n[stderr]\n{err}" if err.strip() else "")
    status = "ok" if done.returncode == 0 else f"failed ({done.returncode})"
    result = Outcome(bench, command, status, seconds, output)
    if done.returncode == 0:
        result.headline = HEADLINES.get(bench.name, last_line)(done.stdout)
    print(f"   {status} in {seconds:.1f}s", file=sys.stderr, flush=True)
    return result


# -- headline figures -------------------------------------------------------------------------


def last_line(text: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1:] if lines else []


def seat_rows(pattern: str) -> Callable[[str], dict[int, str]]:
    def parse(text: str) -> dict[int, str]:
        return {int(m[1]): m[2] for m in re.finditer(pattern, text, re.MULTILINE)}

    return parse


TAKE5_ROWS = seat_rows(r"^\s*(\d+)\s+(\d+)\s+\d+\s+[\d.]+\s+\d+\s+[\d.]+(?:\s+\d+\s+[\d.]+)?\s*$")
TEN_ROWS = seat_rows(r"^\s*(\d+)\s+([\d.]+)\s+\d+\s*$")
PHASE10_ROWS = seat_rows(r"^\s*(\d+)\s+([\d.]+)\s+\d+\s+draw")


def by_seats(rows: dict[int, str], unit: str = "games/s") -> list[str]:
    return [
        ", ".join(f"{seats} seats {value}" for seats, value in sorted(rows.items())) + f" {unit}"
    ]


def grep(*patterns: str) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        out = []
        for line in text.splitlines():
            if any(re.search(p, line) for p in patterns):
                out.append(re.sub(r"\s{2,}", " ", line.strip()))
        return out or last_line(text)

    return parse


HEADLINES: dict[str, Callable[[str], list[str]]] = {
    "take5": lambda text: by_seats(TAKE5_ROWS(text)),
    "ten": lambda text: by_seats(TEN_ROWS(text)),
    "phase10": lambda text: by_seats(PHASE10_ROWS(text)),
    "protocol": grep(r"^raw pipe", r"^arena protocol path", r"^ratio protocol"),
    "loop": grep(r"^(take5|ten|phase10) ", r"^rules step", r"^bare loop \d"),
    "sandbox": lambda text: (
        [
            f"{m[1]} bot, {m[2]}: {m[3]} ms to start, +{m[4]} ms over no sandbox"
            for m in re.finditer(
                r"^(python|node)\s+(unshare|bubblewrap|rlimits)\s+([\d.]+)\s+(-?[\d.]+)", text, re.M
            )
        ]
        or last_line(text)
    ),
    "usage": grep(r"^one sample", r"^sampler thread"),
    "startup": grep(r"^python -c pass", r"^arena (--version|league status)"),
    "league": grep(r"^median matches/s", r"^control \(pure CPU"),
    "dask": grep(r"^workers \d+: median"),
    "adaptive": last_line,
    "site": grep(r"full", r"new"),
    "sprt": grep(r"^summary", r"^real: "),
    "records": grep(r"^all games"),
    "scale": grep(r"^entrants \d+", r"^rate with"),
    "rating": grep(r"^summary"),
    "reference": grep(r" vs 3 "),
    "reference_phase10": grep(r" vs 2 "),
    "reference-league": grep(r"^(PASS|FAIL) ", r"^\d+ matches in "),
    "reference_ten": grep(r" vs 2 "),
}

DASK_ROW = re.compile(
    r"^workers (\d+): median matches/s local ([\d.]+), dask ([\d.]+); dask/local ([\d.]+); "
    r"cluster start ([\d.]+)s; same results: (\w+)",
    re.MULTILINE,
)


# -- the report -------------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> list[tuple[str, str]]:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        branch = subprocess.run(
            ["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        commit = branch = ""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return [
        ("date", datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("machine", f"{platform.system()} {platform.machine()}, {cores} cores (nproc)"),
        ("CPU", cpu_model()),
        ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("rules", native.describe()),
        ("code", f"{branch} @ {commit}" if commit else "unknown"),
        ("load average at start", " ".join(f"{x:.2f}" for x in load)),
    ]


def report(outcomes: list[Outcome], quick: bool, about: list[tuple[str, str]]) -> str:
    lines = ["# arena: performance report", ""]
    lines.append(
        "Written by `python -m benchmarks"
        + (" --quick" if quick else "")
        + "`; every figure below comes from the run recorded here."
    )
    if quick:
        lines.append(
            "**Quick mode**: every benchmark ran small, so the figures are rough (one run, few "
            "games); run `python -m benchmarks` for the full ones."
        )
    lines += ["", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in about]
    lines += [
        "",
        "The machine may be shared: a control figure (pure-CPU speed-up of 2 processes over 1, "
        "measured by `bench_league`) tells how much parallelism was really available.",
        "",
        "## Summary",
        "",
        "| benchmark | what it measures | status | time | headline figures |",
        "|---|---|---|---|---|",
    ]
    for o in outcomes:
        status = o.status + (f": {o.note}" if o.note else "")
        figures = "<br>".join(o.headline).replace("|", "\\|")
        took = f"{o.seconds:.0f}s" if o.seconds else ""
        lines.append(f"| `{o.bench.name}` | {o.bench.what} | {status} | {took} | {figures} |")
    engines = {
        name: parse(o.output)
        for name, parse in (("take5", TAKE5_ROWS), ("ten", TEN_ROWS), ("phase10", PHASE10_ROWS))
        for o in outcomes
        if o.bench.name == name and o.status == "ok"
    }
    seats = sorted({s for rows in engines.values() for s in rows})
    if seats:
        lines += ["", "## Engine speed: games per second (one core, in-process random players)", ""]
        names = [n for n in ("take5", "ten", "phase10") if n in engines]
        lines.append("| seats | " + " | ".join(names) + " |")
        lines.append("|---|" + "---|" * len(names))
        for s in seats:
            lines.append(f"| {s} | " + " | ".join(engines[n].get(s, "") for n in names) + " |")
    dask = next((o for o in outcomes if o.bench.name == "dask" and o.status == "ok"), None)
    league = next((o for o in outcomes if o.bench.name == "league" and o.status == "ok"), None)
    if dask is not None or league is not None:
        lines += ["", "## League throughput: matches per second", ""]
        if league is not None:
            lines.append(
                "Local executor (`bench_league`): " + "; ".join(HEADLINES["league"](league.output))
            )
            lines.append("")
        if dask is not None:
            lines += [
                "Local executor and Dask LocalCluster side by side on the same league, "
                "alternating (`bench_dask`; target for Dask/local at 2 workers: >= 0.8):",
                "",
                "| workers | local matches/s | Dask matches/s | Dask / local | cluster start | "
                "same results |",
                "|---|---|---|---|---|---|",
            ]
            for m in DASK_ROW.finditer(dask.output):
                lines.append(f"| {m[1]} | {m[2]} | {m[3]} | {m[4]} | {m[5]} s | {m[6]} |")
    lines += ["", "## Every output, whole", ""]
    for o in outcomes:
        lines.append(f"### {o.bench.name}: {o.status}")
        lines.append("")
        lines.append(
            f"`{' '.join(['python', *o.command[1:]])}`"
            + (f" ({o.seconds:.1f}s)" if o.seconds else "")
        )
        lines.append("")
        if o.note:
            lines.append(f"Skipped: {o.note}.")
            lines.append("")
        if o.output.strip():
            lines += ["```", o.output.rstrip(), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small runs: rough figures, fast")
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", choices=[b.name for b in BENCHES], default=None
    )
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per benchmark")
    args = parser.parse_args(argv)
    about = machine()
    chosen = [b for b in BENCHES if args.only is None or b.name in args.only]
    outcomes = [run(b, args.quick, args.timeout) for b in chosen]
    args.output.write_text(report(outcomes, args.quick, about), encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0 if all(o.status in ("ok", "skipped") for o in outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""The arena server under load: requests/s and latency of page and API requests on loopback
while the league plays on 2 workers, and the league's rate with the server (and its load)
against the league alone.

1. The league alone: a fresh league (bench_league's: every game at 4 seats; by default the
   in-process built-in bots, so matches end often enough to count over a short window: with
   ``--bots bundled`` a chunk of Phase 10 matches can take a minute on a loaded machine) played by :func:`arena.run.local.run_league` on ``--workers`` workers for ``--matches``
   matches: its rate.
2. The same league behind ``arena server`` (a subprocess; its runner plays on the same number
   of workers): once the league has started, ``--clients`` threads send requests over keep-alive
   connections for ``--seconds`` seconds, each in turn: the leaderboard page, a bot page, a
   match page, the standings, a page of matches, the bots (API). Its league rate is read from
   the store over the same window.

Targets (issue 18): at least 200 requests/s with p99 under 100 ms, and the league keeping at
least 0.8 of its rate alone. The clients run on the same cores as the server and the league:
the figures are a floor.

    python -m benchmarks.bench_server [--seconds 20] [--clients 4] [--matches 200] [--rate 200]

The league's rate is also read behind the idle server (``--seconds`` before the load), and
``--rate`` paces the clients (e.g. the target's 200 requests/s) instead of sending as fast as
they can: flat out, the clients and the server take the cores the league's workers need.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.league.config import Schedule, default_config
from arena.league.core import League
from arena.run.local import run_league
from benchmarks.bench_league import BOTS


def build(folder: Path, matches: int, bots: str) -> Path:
    """bench_league's league (the bundled bots, every game at 4 seats) without the stopping
    rules, so that it plays on while the load lasts."""
    config = default_config(seed=5)
    schedule = replace(Schedule(), max_matches=matches, stop_sigma=0.0, stop_separated=0)
    League.init(folder, replace(config, schedule=schedule))
    with League.open(folder) as lg:
        for bot in BOTS[bots]:
            if bot == "bots/js-random" and shutil.which("node") is None:
                continue
            lg.submit(bot if bot.startswith("builtin:") else str(ROOT / bot), check=False)
    return folder


ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, seconds: float, ok: bool) -> None:
        with self.lock:
            self.latencies.setdefault(kind, []).append(seconds)
            self.errors[kind] = self.errors.get(kind, 0) + (not ok)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(conn: http.client.HTTPConnection, path: str) -> tuple[int, bytes]:
    conn.request("GET", path)
    answer = conn.getresponse()
    return answer.status, answer.read()


def targets(port: int) -> list[tuple[str, str]]:
    """(kind, path) of the requests the clients send in turn."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    _, body = fetch(conn, "/api/v1/matches?limit=1")
    oldest = json.loads(body)["total"] - 1  # rendered first: the render runs behind the league
    _, body = fetch(conn, f"/api/v1/matches?limit=1&offset={oldest}")
    match = json.loads(body)["matches"][0]
    _, body = fetch(conn, "/api/v1/bots")
    bot = json.loads(body)["bots"][0]["current"]
    conn.close()
    return [
        ("page: leaderboard", "/index.html"),
        ("page: bot", f"/bots/{bot}.html"),
        ("page: match", match["page"]),
        ("api: standings", "/api/v1/standings"),
        ("api: matches", "/api/v1/matches?limit=20"),
        ("api: bots", "/api/v1/bots"),
    ]


def status_of(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        return fetch(conn, path)[0]
    finally:
        conn.close()


def client(
    port: int, paths: list[tuple[str, str]], until: float, tally: Tally, k: int, gap: float
) -> None:
    """Send requests until ``until``, one every ``gap`` seconds at most (0: back to back)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    i = k
    due = time.monotonic()
    while time.monotonic() < until:
        if gap:
            due += gap
            time.sleep(max(0.0, due - time.monotonic()))
        kind, path = paths[i % len(paths)]
        i += 1
        began = time.perf_counter()
        try:
            status, _ = fetch(conn, path)
            ok = status == 200
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            ok = False
        tally.add(kind, time.perf_counter() - began, ok)
    conn.close()


def played(folder: Path) -> int:
    with League.open(folder, read_only=True) as lg:
        return lg.store.played_count()


def wait_until(condition: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():  # type: ignore[operator]
                return
        except (OSError, http.client.HTTPException, ValueError, KeyError, IndexError):
            pass
        time.sleep(0.3)
    raise SystemExit("the server did not get ready in time")


def alone(root: Path, matches: int, workers: int, bots: str) -> float:
    folder = build(root / "alone", matches, bots)
    with League.open(folder) as lg:
        report = run_league(lg, workers, progress=None)
    return report.rate


def served(root: Path, args: argparse.Namespace) -> tuple[Tally, float, float, float]:
    """(requests, league rate during the load, seconds of load, league rate while idle)."""
    folder = build(root / "served", 100_000, args.bots)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "server",
            str(folder),
            "--port",
            str(port),
            "--workers",
            str(args.workers),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        # Ready: matches played and the site rendered (the runner renders every few seconds).
        wait_until(lambda: played(folder) >= 60 and (folder / "site" / "index.html").exists(), 300)
        paths = targets(port)
        # Every target rendered (the site's render runs behind the league, at a lower priority).
        wait_until(lambda: all(status_of(port, p) == 200 for _, p in paths), 300)
        idle_played, idle_began = played(folder), time.monotonic()
        time.sleep(args.seconds)  # the league behind an idle server
        idle = (played(folder) - idle_played) / (time.monotonic() - idle_began)
        tally = Tally()
        start_played, began = played(folder), time.monotonic()
        until = began + args.seconds
        gap = args.clients / args.rate if args.rate else 0.0
        threads = [
            threading.Thread(target=client, args=(port, paths, until, tally, k, gap))
            for k in range(args.clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - began
        rate = (played(folder) - start_played) / elapsed
    finally:
        os.killpg(server.pid, 15)
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, 9)
    return tally, rate, elapsed, idle


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--matches", type=int, default=200, help="for the league alone")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--rate", type=float, default=0.0, help="requests/s in all (0: as fast as they go)"
    )
    parser.add_argument("--bots", choices=("bundled", "builtin"), default="builtin")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-server-") as tmp:
        root = Path(tmp)
        rate_alone = alone(root, args.matches, args.workers, args.bots)
        tally, rate_served, elapsed, rate_idle = served(root, args)
    every = [x for v in tally.latencies.values() for x in v]
    print(
        f"league: {args.bots} bots, {args.workers} workers; {args.clients} client threads, "
        f"{elapsed:.0f} s of load"
    )
    print(f"{'requests':<20} {'count':>7} {'p50 ms':>8} {'p99 ms':>8}")
    for kind, values in sorted(tally.latencies.items()):
        print(
            f"{kind:<20} {len(values):>7} {1000 * statistics.median(values):>8.1f} "
            f"{1000 * percentile(values, 0.99):>8.1f}"
        )
    print(
        f"{'all':<20} {len(every):>7} {1000 * statistics.median(every):>8.1f} "
        f"{1000 * percentile(every, 0.99):>8.1f}"
    )
    print(
        f"requests/s: {len(every) / elapsed:.0f} (errors: {sum(tally.errors.values())}); "
        f"p99 {1000 * percentile(every, 0.99):.1f} ms (targets: >= 200/s, p99 < 100 ms)"
    )
    ratio = rate_served / rate_alone if rate_alone else 0.0
    calm = rate_idle / rate_alone if rate_alone else 0.0
    print(
        f"league rate: alone {rate_alone:.2f} matches/s; behind the idle server "
        f"{rate_idle:.2f} (ratio {calm:.2f}); with the server under this load "
        f"{rate_served:.2f} (ratio {ratio:.2f}; target >= 0.8)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

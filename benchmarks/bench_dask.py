"""League throughput on a Dask LocalCluster beside the local executor, on the same league.

For each worker count, a LocalCluster of that many single-threaded worker processes is started
once, as a run without a scheduler starts one (:func:`arena.run.cluster.local_cluster`; its
start-up is timed apart: a real cluster is already running), then the same league --
bench_league's league: every game at four seats, the bundled bots or only the built-ins -- is
played to its budget by the local executor and by the Dask executor in turn, so that both see
the same machine load. The ratio of the medians (Dask / local) is the overhead figure to read
(target >= 0.8 at 2 workers). Also checks that both runs stored the same results.

Then one more league is played by a run that starts (and closes) a cluster of its own, as
``arena league run --executor dask`` without a scheduler does: what a run pays to start a
cluster is its time beyond the warm Dask median.

    python -m benchmarks.bench_dask [--matches 200] [--repeats 3] [--workers 1 2] [--bots builtin]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from arena.league.core import League
from arena.run.local import run_league
from benchmarks.bench_league import BOTS, build


def results(folder: Path) -> list[tuple[str, str, str]]:
    with League.open(folder) as lg:
        rows = lg.store.db.execute(
            "SELECT match_id, ranks, scores FROM results ORDER BY match_id"
        ).fetchall()
    return [(str(a), str(b), str(c)) for a, b, c in rows]


def main() -> None:
    import distributed

    from arena.run.cluster import local_cluster, run_league_dask

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--bots", choices=sorted(BOTS), default="bundled")
    parser.add_argument("--chunk", type=int, default=0, help="matches per Dask task (0: config)")
    args = parser.parse_args()
    summary = []
    with tempfile.TemporaryDirectory(prefix="bench-dask-") as tmp:
        for workers in args.workers:
            began = time.perf_counter()
            cluster = local_cluster(workers)
            client = distributed.Client(cluster, set_as_default=False)  # type: ignore[no-untyped-call]
            startup = time.perf_counter() - began
            print(f"LocalCluster of {workers} workers started in {startup:.2f}s", flush=True)
            rates: dict[str, list[float]] = {"local": [], "dask": []}
            same = True
            try:
                for repeat in range(args.repeats):
                    folders = {}
                    for kind in ("local", "dask"):
                        folder = build(
                            Path(tmp) / f"{kind}-{workers}-{repeat}",
                            args.matches,
                            False,
                            args.bots,
                            None,
                        )
                        folders[kind] = folder
                        with League.open(folder) as lg:
                            if kind == "local":
                                report = run_league(lg, workers, progress=None)
                            else:
                                report = run_league_dask(
                                    lg, client=client, chunk=args.chunk or None
                                )
                        rates[kind].append(report.rate)
                        print(
                            f"{kind:>5}, {workers} workers: {report.played} matches in "
                            f"{report.seconds:.2f}s = {report.rate:.1f}/s",
                            flush=True,
                        )
                    same = same and results(folders["local"]) == results(folders["dask"])
            finally:
                client.close()  # type: ignore[no-untyped-call]
                cluster.close()
            local, dask = statistics.median(rates["local"]), statistics.median(rates["dask"])
            folder = build(Path(tmp) / f"cold-{workers}", args.matches, False, args.bots, None)
            with League.open(folder) as lg:
                cold = run_league_dask(lg, workers=workers, chunk=args.chunk or None)
            extra = cold.seconds - cold.played / dask
            print(
                f" dask, {workers} workers, cluster started by the run: {cold.played} matches in "
                f"{cold.seconds:.2f}s = {cold.rate:.1f}/s ({extra:+.2f}s beyond the warm median)",
                flush=True,
            )
            summary.append((workers, local, dask, startup, same, cold.rate, extra))
    for workers, local, dask, startup, same, cold_rate, extra in summary:
        print(
            f"workers {workers}: median matches/s local {local:.1f}, dask {dask:.1f}; "
            f"dask/local {dask / local:.2f}; cluster start {startup:.1f}s; "
            f"same results: {'yes' if same else 'NO'}; "
            f"run with its own cluster {cold_rate:.1f}/s = {cold_rate / local:.2f} of local, "
            f"{extra:+.1f}s"
        )


if __name__ == "__main__":
    main()

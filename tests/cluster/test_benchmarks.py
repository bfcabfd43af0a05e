"""``python -m benchmarks``: runs the benchmarks it is asked for and writes the report."""

from __future__ import annotations

import platform
from pathlib import Path

from benchmarks.run_all import BENCHES, ROOT, main


def test_every_benchmark_file_is_in_the_runner() -> None:
    files = {p.stem for p in (ROOT / "benchmarks").glob("bench_*.py")}
    assert files <= {b.module for b in BENCHES}


def test_quick_report_of_one_benchmark_and_a_missing_one(tmp_path: Path) -> None:
    out = tmp_path / "REPORT.md"
    missing = "bench_site" if not (ROOT / "benchmarks" / "bench_site.py").exists() else None
    code = main(["--quick", "--only", "ten", "site", "--output", str(out)])
    text = out.read_text()
    assert code == 0
    assert "Quick mode" in text and "cores (nproc)" in text
    assert platform.python_version() in text
    row = next(line for line in text.splitlines() if line.startswith("| `ten` |"))
    assert "| ok |" in row and "5 seats" in row and "games/s" in row
    assert "## Engine speed" in text and "| 5 |" in text
    if missing:
        assert "skipped: benchmarks/bench_site.py is not in this checkout" in text

"""The replay viewer in a real headless Chromium: how long a match page takes to show its first
frame and to seek, with the page carrying the record (replayed in the browser by the game's
model) and, side by side in the same browser, carrying the frames the Python viewer built.

For each game, the longest of ``--seeds`` games of random players (Phase 10 at six seats: the
issue's "longest Phase 10 game") is rendered both ways. Each page is loaded ``--loads`` times:
``ready`` is the time from the start of the navigation to the viewer's first frame (read in the
page: performance.now() when the viewer marks itself ready); ``seek`` the median time of a jump
to the last step and to ten steps spread over the game (a click, drawn at once). Also the page's
render time in Python (CPU ms) and size.

    python -m benchmarks.bench_viewer [--games take5 ten phase10] [--seeds 10] [--loads 5]

Needs /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from arena.site.build import TEMPLATES, Pages
from arena.site.pages import BotRef, match_path
from benchmarks.bench_site import SEATS, play, steps_of, stored, ways
from tests.site.cdp import CHROMIUM, Browser

WATCH = """
window.__ready = null;
new MutationObserver((changes) => {
  for (const change of changes) {
    if (window.__ready === null && change.target.id === "viewer") window.__ready = performance.now();
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-ready"] });
"""
"""Installed in every page before its scripts: the moment the viewer marks itself ready."""

SEEK = """
(() => {
  const steps = parseInt(document.getElementById("step").max, 10) + 1;
  const times = [];
  const last = document.querySelector("[data-go=last]");
  let t = performance.now(); last.click(); times.push(performance.now() - t);
  for (let i = 1; i <= 10; i++) {
    const to = Math.floor((steps - 1) * i / 11);
    t = performance.now();
    location.hash = "#step=" + to + "&seat=all";
    window.dispatchEvent(new HashChangeEvent("hashchange"));
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
})()
"""


def measure(browser: Browser, page: Path, loads: int) -> tuple[float, float]:
    """Median ms to the first frame, and median ms of a seek, over ``loads`` loads."""
    ready, seek = [], []
    for _ in range(loads):
        browser.goto("about:blank")
        browser.goto(page.as_uri())
        deadline = time.monotonic() + 60
        while browser.evaluate("window.__ready") is None:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{page} never became ready")
            time.sleep(0.01)
        ready.append(browser.evaluate("window.__ready"))
        seek.append(browser.evaluate(SEEK))
    return statistics.median(ready), statistics.median(seek)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", nargs="+", default=["take5", "ten", "phase10"])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--loads", type=int, default=5)
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is not installed")
    out = Path(tempfile.mkdtemp(prefix="bench-viewer-"))
    try:
        bots = {b: BotRef(b, f"bot{b}", "", "", "v", "active", "") for b in range(6)}
        pages = Pages(out, TEMPLATES, bots, args.games)
        pages.copy_static()
        print(
            f"{'game':>16}  {'seats':>5}  {'steps':>6}  {'KiB':>6}  {'render CPU ms':>13}"
            f"  {'ready ms':>8}  {'seek ms':>7}",
            flush=True,
        )
        with Browser() as browser:
            browser.send("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH})
            browser.viewport(1280, 900)
            for game in args.games:
                seats = 6 if game == "phase10" else SEATS[game]
                played = max((play(game, s, seats) for s in range(args.seeds)), key=steps_of)
                for how in ways(game):
                    m = stored(game, f"{game}-{how.frames}", played, list(range(seats)))
                    with how:
                        cpu = []
                        for _ in range(4):
                            began = time.process_time()
                            pages.match_page(m)
                            cpu.append(1000 * (time.process_time() - began))
                    page = out / match_path(m.match_id)
                    ready, seek = measure(browser, page, args.loads)
                    print(
                        f"{game + how.mark:>16}  {seats:>5}  {len(played[2]):>6}"
                        f"  {page.stat().st_size / 1024:>6.1f}  {statistics.median(cpu[1:]):>13.1f}"
                        f"  {ready:>8.0f}  {seek:>7.1f}",
                        flush=True,
                    )
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()

"""``report.html`` of an A/B test: the verdict, the LLR over time (SVG) and the block scores.

One self-contained page (no script, no stylesheet to copy) written into the test folder from
``templates/abtest.html`` with jinja2 (autoescaped, undefined names an error). The charts are
computed here as plain coordinates; the template only draws them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from arena import resources

REPORT_FILE = "report.html"
WIDTH, HEIGHT, PAD = 640.0, 240.0, 36.0
"""The charts' size and margin (SVG user units)."""


@dataclass(frozen=True)
class Line:
    """A horizontal line across the LLR chart (a bound, or zero)."""

    y: float
    label: str


@dataclass(frozen=True)
class Bar:
    """One bin of the block-score histogram."""

    x: float
    y: float
    width: float
    height: float
    label: str
    count: int


def llr_chart(history: Sequence[float], lower: float, upper: float) -> dict[str, Any]:
    """The LLR after each block as an SVG polyline between the two bounds."""
    top = max([upper, *history]) * 1.1
    bottom = min([lower, *history]) * 1.1
    span = top - bottom or 1.0
    n = max(1, len(history))

    def x(i: int) -> float:
        return PAD + (WIDTH - 2 * PAD) * i / n

    def y(v: float) -> float:
        return PAD + (HEIGHT - 2 * PAD) * (top - v) / span

    points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate([0.0, *history]))
    lines = [
        Line(y(upper), f"H1 {upper:+.2f}"),
        Line(y(0.0), "0"),
        Line(y(lower), f"H0 {lower:+.2f}"),
    ]
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": PAD,
        "right": WIDTH - PAD,
        "points": points,
        "lines": lines,
        "blocks": len(history),
    }


def histogram(counts: Sequence[int], seats: int) -> dict[str, Any]:
    """The blocks per bin (block score ``k / (2 (N - 1))``) as SVG bars."""
    most = max([1, *counts])
    slot = (WIDTH - 2 * PAD) / max(1, len(counts))
    bars = []
    for k, count in enumerate(counts):
        height = (HEIGHT - 2 * PAD) * count / most
        bars.append(
            Bar(
                x=PAD + k * slot + slot * 0.1,
                y=HEIGHT - PAD - height,
                width=slot * 0.8,
                height=height,
                label=f"{k / (2 * (seats - 1)):.2f}",
                count=count,
            )
        )
    return {"width": WIDTH, "height": HEIGHT, "bars": bars, "base": HEIGHT - PAD}


def environment(templates: Path | None = None) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates or resources.templates()),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def write_report(folder: Path, data: Mapping[str, Any], headline: str) -> Path:
    """Write ``report.html`` into the test's folder from its summary (``arena abtest --json``'s
    object) and the verdict as the command says it; returns its path."""
    settings = data["settings"]
    status = data["status"]
    page = (
        environment()
        .get_template("abtest.html")
        .render(
            headline=headline,
            data=data,
            settings=settings,
            status=status,
            estimate=data["estimate"],
            llr=llr_chart(data["llr"], status["lower"], status["upper"]),
            bins=histogram(data["counts"], settings["seats"]),
        )
    )
    path = folder / REPORT_FILE
    path.write_text(page, encoding="utf-8")
    return path

"""Page data: what each page shows, computed from the league and the site's cache.

Plain frozen values, so the templates only lay them out and the tests can check the numbers
without parsing HTML.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markupsafe import Markup

from arena.games import GAMES, JSON
from arena.league.rating import OverallScore, Standing, interval, tiers
from arena.league.store import Entrant, version_label
from arena.runtime.usage import UsageSummary
from arena.site.cache import MatchRow, Perf, SiteCache

TREND_BATCHES = 5
"""The trend column: the change of the conservative rating over this many batches."""
SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def bot_path(bot: int) -> str:
    """A bot page's file, from its numeric id (never from its name)."""
    return f"bots/{int(bot)}.html"


def match_path(match_id: str) -> str:
    """A match page's file; an id that is not a plain token is replaced by its hash."""
    if SAFE_ID.match(match_id):
        return f"matches/m/{match_id}.html"
    import hashlib

    return f"matches/m/x{hashlib.sha256(match_id.encode()).hexdigest()[:24]}.html"


def game_path(game: str) -> str:
    return f"games/{slug(game)}.html"


def rules_path(game: str) -> str:
    return f"rules/{slug(game)}.html"


def record_path(match_id: str) -> str:
    """The file of a match's stored record, beside its page."""
    return match_path(match_id)[: -len(".html")] + ".json"


def slug(text: str) -> str:
    clean = re.sub(r"[^a-z0-9_-]", "-", text.lower())[:40]
    return clean or "x"


@dataclass(frozen=True)
class BotRef:
    """A bot as a link: everything here but ``id`` comes from its author and is escaped."""

    id: int
    name: str
    author: str
    label: str
    version: str
    status: str
    """Its :class:`~arena.league.store.EntrantStatus`, or "unknown" for a bot not entered."""
    reason: str
    twin: bool = False
    """Another entrant of the league has this name (an older or newer version): links then
    name the version too."""

    @classmethod
    def of(cls, e: Entrant, twin: bool = False) -> BotRef:
        return cls(e.id, e.name, e.author, e.label, e.version[:12], e.status, e.reason, twin)

    @property
    def shown_version(self) -> str:
        """``label (hash)``: how versions are told apart everywhere (the hash alone without a
        label)."""
        return version_label(self.label, self.version)


@dataclass(frozen=True)
class RatingRow:
    rank: int
    bot: BotRef
    mu: float
    sigma: float
    conservative: float
    matches: int
    wins: int
    mean_place: float
    fault_rate: float
    trend: float | None
    tier: int
    """Bots of one tier are not separated by the evidence so far (see rating.tiers)."""
    low: float
    high: float
    """The 95% interval of mu."""


@dataclass(frozen=True)
class OverallRow:
    rank: int
    bot: BotRef
    score: float
    games: int
    of: int
    matches: int
    wins: int
    fault_rate: float


@dataclass(frozen=True)
class SoloRow:
    rank: int
    bot: BotRef
    matches: int
    mean: float
    stderr: float


@dataclass(frozen=True)
class GameTable:
    game: str
    title: str
    rows: list[RatingRow]
    solo: list[SoloRow]


def unknown_bot(bot: int) -> BotRef:
    return BotRef(bot, f"bot {bot}", "", "", "", "unknown", "")


def refs(entrants: Sequence[Entrant]) -> dict[int, BotRef]:
    names = Counter(e.name for e in entrants)
    return {e.id: BotRef.of(e, names[e.name] > 1) for e in entrants}


def game_title(game: str) -> str:
    spec = GAMES.get(game)
    return spec.title if spec is not None else game


def trend(cache: SiteCache, game: str, s: Standing, rated: int) -> float | None:
    before = cache.rating_before(game, s.bot, rated - 1 - TREND_BATCHES)
    if before is None:
        return None
    return s.conservative - (before[0] - 3 * before[1])


def game_tables(
    cache: SiteCache,
    games: Sequence[str],
    standings: Mapping[str, Sequence[Standing]],
    bots: Mapping[int, BotRef],
    rated: int,
    higher_is_better: Mapping[str, bool],
) -> list[GameTable]:
    perf = cache.perf()
    solo = cache.solo(rated)
    out = []
    for game in games:
        rows = []
        ranked = standings.get(game, ())
        for i, (s, tier) in enumerate(zip(ranked, tiers(ranked), strict=True)):
            p = perf.get((game, s.bot), Perf(0, 0, 0, 0))
            rows.append(
                RatingRow(
                    i + 1,
                    bots.get(s.bot, unknown_bot(s.bot)),
                    s.mu,
                    s.sigma,
                    s.conservative,
                    p.matches,
                    p.wins,
                    p.mean_place,
                    p.fault_rate,
                    trend(cache, game, s, rated),
                    tier,
                    *interval(s),
                )
            )
        solo_rows = []
        for (g, bot), (n, total, squares) in solo.items():
            if g != game or n == 0:
                continue
            mean = total / n
            var = max(0.0, (squares - n * mean * mean) / (n - 1)) if n > 1 else 0.0
            solo_rows.append((bot, n, mean, math.sqrt(var / n)))
        sign = -1 if higher_is_better.get(game, True) else 1
        solo_rows.sort(key=lambda t: (sign * t[2], t[0]))
        out.append(
            GameTable(
                game,
                game_title(game),
                rows,
                [
                    SoloRow(i + 1, bots.get(b, unknown_bot(b)), n, mean, err)
                    for i, (b, n, mean, err) in enumerate(solo_rows)
                ],
            )
        )
    return out


def overall_rows(
    ranking: Sequence[OverallScore],
    bots: Mapping[int, BotRef],
    perf: Mapping[tuple[str, int], Perf],
) -> list[OverallRow]:
    out = []
    for i, o in enumerate(ranking):
        mine = [p for (g, b), p in perf.items() if b == o.bot]
        matches = sum(p.matches for p in mine)
        wins = sum(p.wins for p in mine)
        faulted = sum(p.faulted for p in mine)
        out.append(
            OverallRow(
                i + 1,
                bots.get(o.bot, unknown_bot(o.bot)),
                o.score,
                o.games,
                o.of,
                matches,
                wins,
                faulted / matches if matches else 0.0,
            )
        )
    return out


# -- a bot's page ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Chart:
    """A rating-over-time chart as SVG coordinates (drawn by the template)."""

    game: str
    width: int
    height: int
    mu_line: str
    band: str
    conservative_line: str
    y_ticks: list[tuple[float, str]]
    x_ticks: list[tuple[float, str]]
    points: int


def chart(game: str, history: Sequence[tuple[int, float, float]], width: int = 640) -> Chart:
    """Mu with a ±3σ band and the conservative rating, by batch."""
    height, left, right, top, bottom = 220, 48, 12, 12, 28
    if not history:
        return Chart(game, width, height, "", "", "", [], [], 0)
    xs = [b for b, _, _ in history]
    lows = [mu - 3 * s for _, mu, s in history]
    highs = [mu + 3 * s for _, mu, s in history]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(lows), max(highs)
    if x1 == x0:
        x1 = x0 + 1
    if y1 - y0 < 1:
        y1, y0 = y1 + 0.5, y0 - 0.5

    def px(x: float) -> float:
        return round(left + (x - x0) / (x1 - x0) * (width - left - right), 1)

    def py(y: float) -> float:
        return round(top + (y1 - y) / (y1 - y0) * (height - top - bottom), 1)

    mu_line = " ".join(f"{px(b)},{py(mu)}" for b, mu, _ in history)
    cons = " ".join(f"{px(b)},{py(mu - 3 * s)}" for b, mu, s in history)
    upper = [f"{px(b)},{py(mu + 3 * s)}" for b, mu, s in history]
    lower = [f"{px(b)},{py(mu - 3 * s)}" for b, mu, s in reversed(history)]
    band = " ".join(upper + lower)
    step = nice_step((y1 - y0) / 4)
    y_ticks = []
    v = math.ceil(y0 / step) * step
    while v <= y1:
        y_ticks.append((py(v), f"{v:g}"))
        v += step
    xstep = max(1, int(nice_step((x1 - x0) / 5)))
    x_ticks = [(px(b), str(b)) for b in range(x0 - x0 % xstep, x1 + 1, xstep) if b >= x0]
    return Chart(game, width, height, mu_line, band, cons, y_ticks, x_ticks, len(history))


def nice_step(raw: float) -> float:
    if raw <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * power:
            return float(m * power)
    return float(10 * power)


@dataclass(frozen=True)
class Opponent:
    game: str
    bot: BotRef
    ahead: int
    behind: int
    tied: int

    @property
    def played(self) -> int:
        return self.ahead + self.behind + self.tied


@dataclass(frozen=True)
class MatchLine:
    """A match in a list: its row plus the bots by seat."""

    row: MatchRow
    bots: list[BotRef]
    path: str
    linked: bool = True
    """The match has a page to link to (a static site renders only some, see
    :class:`~arena.site.build.MatchPages`)."""


def match_lines(
    rows: Sequence[MatchRow],
    bots: Mapping[int, BotRef],
    linked: Callable[[str], bool] | None = None,
) -> list[MatchLine]:
    """The rows as list lines; ``linked(match_id)`` says whether a match has a page (all do
    without it)."""
    return [
        MatchLine(
            r,
            [bots.get(b, unknown_bot(b)) for b in r.bots],
            match_path(r.match_id),
            linked is None or linked(r.match_id),
        )
        for r in rows
    ]


@dataclass(frozen=True)
class UsageRow:
    """A bot's CPU seconds and peak memory per match in one game, all its processes together."""

    game: str
    title: str
    usage: UsageSummary


def usage_rows(per_game: Sequence[tuple[str, UsageSummary]]) -> list[UsageRow]:
    return [UsageRow(game, game_title(game), usage) for game, usage in per_game]


# -- a game's head to head ---------------------------------------------------------------


@dataclass(frozen=True)
class PairCell:
    """How the row bot fared against the column bot in one game, once per match together."""

    ahead: int
    behind: int
    tied: int

    @property
    def played(self) -> int:
        return self.ahead + self.behind + self.tied

    @property
    def share(self) -> float:
        """The share of the matches together where the row bot placed ahead."""
        return self.ahead / self.played if self.played else 0.0


H2H_MAX = 40
"""The head-to-head matrix shows at most this many bots (the top of the standings): the cells
grow with the square, and 40 bots are already 1,560 cells."""


@dataclass(frozen=True)
class HeadToHead:
    """A game's matrix: ``cells[i][j]`` is bot ``i`` against bot ``j`` (None: never met, or
    the diagonal)."""

    bots: list[BotRef]
    cells: list[list[PairCell | None]]
    left_out: int = 0
    """Bots beyond :data:`H2H_MAX`, not shown."""


def head_to_head(
    pairs: Mapping[tuple[int, int], tuple[int, int, int]],
    order: Sequence[int],
    bots: Mapping[int, BotRef],
) -> HeadToHead:
    """The matrix of the bots in ``order`` (the standings), then any other bot met, by id;
    the first :data:`H2H_MAX` of them."""
    ids = list(dict.fromkeys(order))
    ids += sorted({b for b, _ in pairs} - set(ids))
    left_out = max(0, len(ids) - H2H_MAX)
    ids = ids[:H2H_MAX]
    cells: list[list[PairCell | None]] = []
    for a in ids:
        line: list[PairCell | None] = []
        for b in ids:
            t = pairs.get((a, b)) if a != b else None
            line.append(PairCell(*t) if t is not None and t[0] + t[1] + t[2] else None)
        cells.append(line)
    return HeadToHead([bots.get(b, unknown_bot(b)) for b in ids], cells, left_out)


# -- the search index over every match -----------------------------------------------------


def search_row(row: MatchRow, games: Sequence[str]) -> list[JSON]:
    """One match in the search index, as compact as it can be read back:
    ``[seq, id, game index, batch, bots, ranks, scores, faulted seats, fault kinds, file]``
    and, for Phase 10, the phases completed by seat. ``file`` is 0 when the page is named by
    the id (:func:`match_path`), else the page's file name."""
    page = match_path(row.match_id)
    stem = page.rsplit("/", 1)[1][: -len(".html")]
    scores: list[JSON] = [int(v) if float(v).is_integer() else v for v in row.scores]
    out: list[JSON] = [
        row.seq,
        row.match_id,
        games.index(row.game) if row.game in games else row.game,
        row.batch,
        list(row.bots),
        list(row.ranks),
        scores,
        list(row.faulted),
        list(row.kinds),
        0 if stem == row.match_id else stem,
    ]
    if row.phases:
        out.append(list(row.phases))
    return out


def phases_of(record: Mapping[str, JSON]) -> list[int]:
    """Phase 10's phases completed by seat, from a record's result (else empty)."""
    if record.get("game") != "phase10":
        return []
    result = record.get("result")
    details = result.get("details") if isinstance(result, dict) else None
    phases = details.get("phases") if isinstance(details, dict) else None
    if not isinstance(phases, list) or not all(isinstance(p, int) for p in phases):
        return []
    return [int(p) for p in phases]


# -- rules ---------------------------------------------------------------------------------


def rules_text(game: str, seeds: Path) -> str:
    spec = GAMES.get(game)
    if spec is None:
        return ""
    path = seeds / spec.rules_file
    return path.read_text("utf-8") if path.is_file() else ""


_MARKDOWN = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
"""CommonMark with tables; raw HTML in the source is shown as text, never passed through, and
markdown-it's own link check refuses ``javascript:`` and other unsafe links."""


def rules_html(text: str) -> Markup:
    """A rules file (markdown) as HTML."""
    return Markup(_MARKDOWN.render(text))

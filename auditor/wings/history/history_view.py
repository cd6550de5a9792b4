"""The history's section as each output shows it: the HTML part, a line, the gauges.

With `--history`, a run with a budget requests part of the site; the rest is known from
earlier runs. The HTML part says both: this run's requests and why, and the site as last
known, its verdicts by age. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditor.report.charts import ColumnChart, Item, column_chart
from auditor.report.section import HtmlPart, MakeGauge, Slot
from auditor.wings.history.last_known import HistoryCounts, LastKnown

TEMPLATE = "auditor.wings.history:history.html.j2"
# Ages charted one column a day up to this many days; older ones share the last column.
AGE_COLUMNS = 8
_TIERS = {
    "due": "due under --max-age",
    "lastmod_changed": "lastmod changed",
    "never_checked": "never checked",
    "failed_or_changed": "failed or changed last time",
    "oldest": "the oldest",
}


@dataclass(frozen=True, slots=True)
class HistoryView:
    """The numbers the section shows."""

    requested: int
    why: tuple[tuple[str, int], ...]  # (reason, requests), in the budget's order
    not_modified: int
    resumed: int
    carried: int
    never_checked: int
    max_age_exceeded: int
    max_age_days: int | None
    stopped_by: str | None
    known: int  # URLs with a verdict, fresh or carried
    indexable: int
    not_indexable: int
    oldest_days: int | None
    ages: ColumnChart | None


def history_part(counts: HistoryCounts, known: LastKnown) -> HtmlPart:
    """The part, under the headline's cards."""
    title = "This run and the site as last known"
    return HtmlPart("history", title, Slot.TOP, TEMPLATE, history_view(counts, known))


def history_view(counts: HistoryCounts, known: LastKnown) -> HistoryView:
    """The part's numbers, from the history's counts."""
    return HistoryView(
        requested=counts.requested,
        why=tuple(
            (label, counts.by_tier[tier]) for tier, label in _TIERS.items() if counts.by_tier[tier]
        ),
        not_modified=counts.not_modified,
        resumed=counts.resumed,
        carried=counts.carried,
        never_checked=counts.never_checked,
        max_age_exceeded=counts.max_age_exceeded,
        max_age_days=counts.max_age_days,
        stopped_by=counts.stopped_by,
        known=known.urls,
        indexable=known.indexable,
        not_indexable=known.not_indexable.total(),
        oldest_days=max(known.by_age_days) if known.by_age_days else None,
        ages=_age_chart(known),
    )


def _age_chart(known: LastKnown) -> ColumnChart | None:
    if not known.by_age_days:
        return None
    columns = [0] * AGE_COLUMNS
    for days, n in known.by_age_days.items():
        columns[min(days, AGE_COLUMNS - 1)] += n
    labels = ["today", *(f"{days}d" for days in range(1, AGE_COLUMNS - 1))]
    labels.append(f"≥{AGE_COLUMNS - 1}d")
    tones = ["ok", *["notice"] * (AGE_COLUMNS - 2), "warning"]
    return column_chart(
        [Item(label, n, tone) for label, n, tone in zip(labels, columns, tones, strict=True)]
    )


def history_line(counts: HistoryCounts, known: LastKnown) -> str:
    """The terminal's line: what the run requested, what it carried, with the oldest's age."""
    line = f"history: {_count(counts.requested, 'URL')} requested"
    if counts.not_modified:
        line += f" ({counts.not_modified:,} unchanged: 304)"
    if counts.resumed:
        line += f", {counts.resumed:,} by the run it resumed"
    if counts.carried:
        oldest = max(known.by_age_days) if known.by_age_days else 0
        line += f", {counts.carried:,} carried (the oldest {_count(oldest, 'day')} old)"
    if counts.never_checked:
        line += f", {counts.never_checked:,} never checked yet"
    if counts.max_age_exceeded:
        line += f"; {counts.max_age_exceeded:,} older than --max-age: the budget ran out"
    return line


def _count(n: int, word: str) -> str:
    """`1 URL`, `3,000 URLs`."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def history_gauges(gauge: MakeGauge, target: str, counts: HistoryCounts, known: LastKnown) -> None:
    """With --history: what the budget carried, and how old the oldest verdict is."""
    for name, doc, value in (
        (
            "urls_carried",
            "URLs not requested: their last verdict carried (--history).",
            counts.carried,
        ),
        (
            "urls_not_modified",
            "URLs that answered 304: their last verdict confirmed.",
            counts.not_modified,
        ),
        ("urls_never_checked", "Listed URLs never requested yet (--budget).", counts.never_checked),
        (
            "urls_max_age_exceeded",
            "Carried verdicts older than --max-age.",
            counts.max_age_exceeded,
        ),
    ):
        gauge(name, doc).labels(target).set(value)
    if known.oldest_s is not None:
        oldest = max(0.0, known.now_s - known.oldest_s)
        gauge("oldest_verdict_age_seconds", "The age of the oldest verdict (--history).").labels(
            target
        ).set(oldest)

"""The HTML report's history section: what the run requested, what it carried, with ages.

With `--history`, a run with a budget requests part of the site; the rest is known from
earlier runs. This section says both: this run's requests and why, and the site as last
known, its verdicts by age. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditor.report.charts import ColumnChart, Item, column_chart
from auditor.results.last_known import HistoryCounts, LastKnown

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


def history_view(counts: HistoryCounts, known: LastKnown) -> HistoryView:
    """The section's numbers, from the summary's history counts."""
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

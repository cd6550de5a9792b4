"""The history's section of the report: `summary.history`, with `--history`.

What the run's budget did (HistoryCounts) and the site as last known, carried verdicts included
(LastKnown); the summary's own counts are this run's requests. Its views are
auditor.wings.history.history_view's. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from auditor.codes import Code
from auditor.report.section import HtmlPart, Json, Lines, MakeGauge, RegressionSource
from auditor.results.verdict import KnownCounts
from auditor.wings.history.history_view import history_gauges, history_line, history_part
from auditor.wings.history.last_known import HistoryCounts, LastKnown


@dataclass(frozen=True, slots=True)
class HistorySection:
    """What a run with a history requested, carried and knows (docs/reference/report.md)."""

    counts: HistoryCounts
    site: LastKnown  # every listed URL with a verdict, fresh or carried

    place = "summary.history"
    regressions = None
    clause = None

    @property
    def last_known(self) -> KnownCounts:
        """What the verdict line says of the site as last known."""
        return KnownCounts(
            not_indexable=self.site.not_indexable.total(),
            requested=self.counts.requested,
            never_checked=self.counts.never_checked,
        )

    @property
    def new_codes(self) -> Mapping[Code, int]:
        """It calls no finding new."""
        return {}

    def to_json(self) -> Json:
        """The report's `summary.history`."""
        return self.counts.to_json(self.site)

    def html(self) -> HtmlPart:
        """The report's part under the headline's cards."""
        return history_part(self.counts, self.site)

    def lines(self) -> Lines:
        """One line after the codes."""
        return Lines(tail=(history_line(self.counts, self.site),))

    def gauges(self, gauge: MakeGauge, target: str) -> None:
        """The history's gauges (docs/reference/metrics.md)."""
        history_gauges(gauge, target, self.counts, self.site)

    def markdown(self) -> None:
        """The Markdown summary says nothing of the history."""

    def junit(self) -> RegressionSource | None:
        """The history adds no JUnit case."""
        return None

"""The crawl's section of the report: `summary.coverage`, the crawl held against the sitemaps.

Its counts: what the crawl did (auditor.wings.crawl.crawl_records.CrawlSummary), the listed
URLs as the sink passed them (CoverageCounts), and the coverage findings of the run. Its views
are auditor.wings.crawl.coverage_view's. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from auditor.codes import Code
from auditor.report.section import HtmlPart, Json, Lines, MakeGauge, RegressionSource
from auditor.results.samples import Text
from auditor.wings.crawl.coverage_view import (
    CODES,
    coverage_gauges,
    coverage_line,
    coverage_part,
)
from auditor.wings.crawl.crawl_records import CoverageCounts, CrawlSummary


@dataclass(frozen=True, slots=True)
class CoverageSection:
    """What the crawl found, against the sitemaps (docs/reference/report.md)."""

    crawl: CrawlSummary
    counts: CoverageCounts
    found: Mapping[Code, int]  # the run's coverage findings, by code
    examples: Mapping[Code, tuple[Text, ...]]  # the first URLs of each, as kept for the HTML

    place = "summary.coverage"
    regressions = None
    last_known = None
    clause = None

    @property
    def new_codes(self) -> Mapping[Code, int]:
        """It calls no finding new."""
        return {}

    @property
    def stopped_by(self) -> list[str]:
        """The bounds that stopped the crawl, and `interrupted`."""
        crawl = self.crawl
        return [*crawl.bounds, *(["interrupted"] if crawl.interrupted else [])]

    def to_json(self) -> Json:
        """The report's `summary.coverage`."""
        crawl, counts = self.crawl, self.counts
        return {
            "complete": crawl.complete,
            "stopped_by": self.stopped_by,
            "sitemaps_read": crawl.sitemaps_read,
            "starts": list(crawl.starts),
            "scope": list(crawl.scope),
            "crawled": crawl.read + crawl.unread,
            "unread": crawl.unread,
            "blocked": crawl.blocked,
            "hidden": crawl.hidden,
            "no_robots": crawl.no_robots,
            "nofollow": crawl.nofollow,
            "depth": crawl.depth,
            "crawled_and_listed": counts.crawled,
            "crawled_only": crawl.only_crawled,
            "listed_only": counts.listed - counts.crawled,
            "listed_linked": counts.reached,
            "not_in_sitemap": self.found.get(Code.COVERAGE_NOT_IN_SITEMAP, 0),
            "orphans": self.found.get(Code.COVERAGE_ORPHAN, 0),
            "deep": self.found.get(Code.COVERAGE_DEEP, 0),
        }

    def html(self) -> HtmlPart:
        """The report's "Coverage" part, after the sitemaps."""
        return coverage_part(self.crawl, self.counts, self.found, self.examples)

    def lines(self) -> Lines:
        """One line under the headline."""
        return Lines(head=(coverage_line(self.crawl, self.counts, self.stopped_by),))

    def gauges(self, gauge: MakeGauge, target: str) -> None:
        """The coverage gauges (docs/reference/metrics.md)."""
        coverage_gauges(gauge, target, self.crawl, self.counts)

    def markdown(self) -> None:
        """The Markdown summary says nothing of the crawl."""

    def junit(self) -> RegressionSource | None:
        """The crawl adds no JUnit case (its findings are the URLs' own)."""
        return None


def found_of(by_code: Mapping[Code, int]) -> dict[Code, int]:
    """The run's coverage findings, by code."""
    return {code: by_code.get(code, 0) for code in CODES}

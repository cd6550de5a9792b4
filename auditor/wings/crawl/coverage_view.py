"""The crawl's section as each output shows it: the HTML "Coverage" part, a line, the gauges.

The HTML part: three counts drawn as two overlapping circles (crawled only, both, listed only),
whether the crawl covered the site, and the URLs of each coverage finding as links (the kept
examples). Built from counts and bounded examples only. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from auditor.codes import Code
from auditor.report.html_rows import Link, link
from auditor.report.section import HtmlPart, MakeGauge, Slot
from auditor.results.samples import Text
from auditor.wings.crawl.crawl_records import CoverageCounts, CrawlSummary

CODES = (Code.COVERAGE_NOT_IN_SITEMAP, Code.COVERAGE_ORPHAN, Code.COVERAGE_DEEP)
TEMPLATE = "auditor.wings.crawl:coverage.html.j2"
_STOPS = {
    "pages": "it reached --crawl-max",
    "depth": "it reached --crawl-depth",
    "interrupted": "the run was stopped",
}


@dataclass(frozen=True, slots=True)
class CoverageList:
    """The URLs of one coverage finding: the first kept, and how many there are."""

    code: str
    title: str
    severity: str
    total: int
    urls: tuple[Link, ...]


@dataclass(frozen=True, slots=True)
class CoverageView:
    """What the crawl found, against the sitemaps."""

    crawled_only: int
    both: int
    listed_only: int
    crawled: int
    complete: bool
    why_incomplete: tuple[str, ...]  # said when the crawl did not cover the site
    sitemaps_read: bool
    lists: tuple[CoverageList, ...]


def coverage_part(
    crawl: CrawlSummary,
    counts: CoverageCounts,
    found: Mapping[Code, int],
    examples: Mapping[Code, tuple[Text, ...]],
) -> HtmlPart:
    """The part, after the sitemaps."""
    view = CoverageView(
        crawled_only=crawl.only_crawled,
        both=counts.crawled,
        listed_only=counts.listed - counts.crawled,
        crawled=crawl.read + crawl.unread,
        complete=crawl.complete,
        why_incomplete=_why_incomplete(crawl),
        sitemaps_read=crawl.sitemaps_read,
        lists=tuple(
            CoverageList(
                code.value,
                code.info.title,
                code.severity.value,
                found.get(code, 0),
                tuple(link(text) for text in examples.get(code, ())),
            )
            for code in CODES
        ),
    )
    return HtmlPart("coverage", "Coverage", Slot.PAGES, TEMPLATE, view)


def _why_incomplete(crawl: CrawlSummary) -> tuple[str, ...]:
    stops = [*crawl.bounds, *(["interrupted"] if crawl.interrupted else [])]
    why = [_STOPS[stop] for stop in stops]
    if crawl.unread:
        why.append(f"{crawl.unread:,} pages it requested gave no page (no answer, 5xx, 429)")
    if crawl.hidden:
        why.append(f"robots.txt keeps it from {crawl.hidden:,} URLs Google may read")
    if crawl.no_robots:
        why.append(f"{crawl.no_robots:,} URLs are on a host whose robots.txt could not be read")
    if not crawl.read:
        why.append("it read no page")
    return tuple(why)


def coverage_line(crawl: CrawlSummary, counts: CoverageCounts, stopped_by: list[str]) -> str:
    """The terminal's line: the crawl against the sitemaps."""
    line = (
        f"coverage: {crawl.read + crawl.unread:,} URLs crawled, "
        f"{counts.crawled:,} of them listed, {crawl.only_crawled:,} not; "
        f"{counts.listed - counts.crawled:,} listed URLs not crawled"
    )
    if not crawl.complete:
        stopped = ", ".join(stopped_by) or "pages it could not read"
        line += f" (the crawl did not cover the site: {stopped}; no orphan named)"
    return line


def coverage_gauges(
    gauge: MakeGauge, target: str, crawl: CrawlSummary, counts: CoverageCounts
) -> None:
    """The crawl against the sitemaps (--crawl): its three counts, its pages, whether complete."""
    kinds = gauge("coverage_urls", "URLs crawled and listed, crawled only, listed only.", "kind")
    for kind, value in (
        ("crawled_and_listed", counts.crawled),
        ("crawled_only", crawl.only_crawled),
        ("listed_only", counts.listed - counts.crawled),
    ):
        kinds.labels(target, kind).set(value)
    pages = gauge("crawl_pages", "URLs the crawl requested (--crawl).")
    pages.labels(target).set(crawl.read + crawl.unread)
    complete = gauge("crawl_complete", "1 when the crawl covered the site, else 0.")
    complete.labels(target).set(int(crawl.complete))

"""The HTML report's "Coverage" part (--crawl): the crawl against the sitemaps, and its URLs.

Three counts drawn as two overlapping circles (crawled only, both, listed only), whether the
crawl covered the site, and the URLs of each coverage finding as links (the kept examples).
Built from the summary and the bounded samples only. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditor.codes import Code
from auditor.report.html_rows import Link, link
from auditor.results.samples import Samples
from auditor.results.summary import Summary

_CODES = (Code.COVERAGE_NOT_IN_SITEMAP, Code.COVERAGE_ORPHAN, Code.COVERAGE_DEEP)
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


def coverage_view(summary: Summary, samples: Samples) -> CoverageView | None:
    """The part, or None without a crawl."""
    crawl = summary.crawl
    if crawl is None:
        return None
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
    lists = []
    for code in _CODES:
        examples = samples.examples.get(code, [])
        urls = tuple(link(example.url) for example in examples if example.url is not None)
        info = code.info
        lists.append(
            CoverageList(code.value, info.title, code.severity.value, summary.by_code[code], urls)
        )
    return CoverageView(
        crawled_only=crawl.only_crawled,
        both=summary.listed_crawled,
        listed_only=summary.listed_urls - summary.listed_crawled,
        crawled=crawl.read + crawl.unread,
        complete=crawl.complete,
        why_incomplete=tuple(why),
        sitemaps_read=crawl.sitemaps_read,
        lists=tuple(lists),
    )

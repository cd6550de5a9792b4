"""The crawl as a wing of the run (`--crawl`): the site read first, the sitemaps held against it.

The crawler reads the site through the URL checks' own opener before any sitemap is read; each
URL record the sitemaps give then passes its coverage (auditor.wings.crawl.coverage), which
joins it with what the crawl found; the pages only the crawl found come last. The section is
`summary.coverage`. See docs/how-to/coverage.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from auditor.models import Relisted, SitemapRecord, TargetRecord
from auditor.options.row import Group, Kind, Option
from auditor.report.section import Section
from auditor.sitemap.read_services import EmitSitemap
from auditor.wings.crawl.coverage import Coverage
from auditor.wings.crawl.coverage_section import CoverageSection, found_of
from auditor.wings.crawl.coverage_view import CODES
from auditor.wings.crawl.crawl_records import CoverageCounts, CrawlPlan, CrawlSummary, crawl_plan
from auditor.wings.crawl.crawler import Crawler
from auditor.wings.crawl.page_store import CrawlStore, pages_path
from auditor.wings.feature import Conclusion, Lanes, Opening, Walked, WalkParts, Watch, after

_G = Group.CRAWL
# Its options (docs/how-to/coverage.md#bounds); each one's default and range are its field's.
ROWS: tuple[Option, ...] = (
    Option("crawl", _G, "crawl the site too: pages missing from the sitemaps", Kind.FLAG),
    Option("crawl-max", _G, "URLs requested (%(default)s)", Kind.NUMBER, metavar="N"),
    Option("crawl-depth", _G, "clicks from the home page (%(default)s)", Kind.NUMBER, metavar="N"),
    Option(
        "crawl-page-bytes", _G, "of each page read (2 MiB, as Google)", Kind.NUMBER, metavar="N"
    ),
    Option(
        "crawl-host", _G, "a host in scope too", metavar="HOST", repeat=True, setting="crawl_hosts"
    ),
    Option(
        "crawl-start", _G, "a start page too", metavar="URL", repeat=True, setting="crawl_starts"
    ),
    Option("crawl-nofollow", _G, 'follow rel="nofollow" links too', Kind.FLAG),
    Option(
        "deep-clicks", _G, "coverage.deep beyond N clicks (%(default)s)", Kind.NUMBER, metavar="N"
    ),
)


class CrawlFeature:
    """`--crawl`, as the registry lists it."""

    name = "crawl"
    rows = ROWS

    async def open(self, run: Opening) -> CrawlWing | None:
        """The crawl of this run, when it asks for one."""
        config = run.config
        if not config.crawl:
            return None
        return CrawlWing(crawl_plan(config), deep_clicks=config.deep_clicks, report=run.report)


FEATURE = CrawlFeature()


class CrawlWing:
    """One run's crawl, its coverage, and what the sink counts for it."""

    def __init__(self, plan: CrawlPlan, *, deep_clicks: int, report: Path) -> None:
        self._plan = plan
        self._deep_clicks = deep_clicks
        self._report = report
        self._counts = CoverageCounts()  # the listed URLs as the sink passes them
        self._crawler: Crawler | None = None
        self._store: CrawlStore | None = None
        self._coverage: Coverage | None = None
        self._done = False  # the crawl is over
        self._summary: CrawlSummary | None = None  # once the walk ended

    async def watch(self, parts: WalkParts, watch: Watch) -> Watch:
        """The crawl's store opens beside the report; the sink counts the listed URLs for it."""
        store = await parts.stack.enter_async_context(CrawlStore(pages_path(self._report)))
        robots = parts.openers.robots.get
        self._crawler = Crawler(parts.checker, robots=robots, store=store, plan=self._plan)
        self._store = store
        return replace(watch, observers=(*watch.observers, self._counts))

    def route(self, parts: WalkParts, lanes: Lanes) -> Lanes:
        """The crawl before the walk; every URL record of the sitemaps through its coverage.

        A URL the crawl requested carries the crawl's check to the sink, shown to the run's
        watchers as the check stage shows the others; the rest go on as they came.
        """
        crawler, store = self._crawler, self._store
        assert crawler is not None
        assert store is not None
        coverage = self._coverage = Coverage(
            crawler,
            store,
            scope=self._plan.scope,
            deep_clicks=self._deep_clicks,
            listed=parts.listed,
            emit_checked=parts.sink,
            emit=lanes.urls,
            leads=parts.checker.canonical_leads,
            watchers=lanes.watchers,
        )
        # A canonical the crawl requested is not requested again (auditor.checks.visits).
        parts.checker.learn_from(coverage.verdict_of)

        async def walked(walk: Walked) -> None:  # said before the alternates are judged
            coverage.sitemaps_done(capped=walk.capped, targets=walk.targets)
            await lanes.walked(walk)

        async def ended(*, finished: bool, targets: Sequence[TargetRecord]) -> None:
            await lanes.ended(finished=finished, targets=targets)
            self._summary = await coverage.finish(walked=finished, interrupted=not self._done)

        return replace(
            lanes,
            urls=coverage.submit,
            sitemaps=_watching(coverage, lanes.sitemaps),
            before=after(lanes.before, self._crawl),
            walked=walked,
            ended=ended,
            busy=lambda: None if self._done else crawler.requested,
        )

    async def _crawl(self) -> None:
        """Crawl the site; the sitemaps are read once it is over (auditor.wings.crawl.coverage)."""
        assert self._crawler is not None
        assert self._coverage is not None
        await self._crawler.run()
        self._done = True
        await self._coverage.crawled(interrupted=False)

    async def finish(self, ended: Conclusion) -> Section | None:
        """`summary.coverage`; none when the walk did not end (an internal failure)."""
        if self._summary is None:
            return None
        examples = ended.samples.examples
        return CoverageSection(
            self._summary,
            self._counts,
            found=found_of(ended.summary.by_code),
            examples={
                code: tuple(kept.url for kept in examples.get(code, []) if kept.url is not None)
                for code in CODES
            },
        )


def _watching(coverage: Coverage, emit: EmitSitemap) -> EmitSitemap:
    """`emit`, each document shown to coverage first (was it read whole?)."""

    async def seen(item: SitemapRecord | Relisted) -> None:
        if isinstance(item, SitemapRecord):
            coverage.saw_sitemap(item)
        await emit(item)

    return seen

"""The crawl's records: what it is asked to do (`CrawlPlan`, its configuration), what it did.

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditor.config import AuditConfig
from auditor.models import SitemapRecord, UrlRecord
from auditor.urls import parse_known
from auditor.wings.crawl.scope import CrawlScope


@dataclass(frozen=True, slots=True)
class CrawlPlan:
    """What to crawl and how far (docs/how-to/coverage.md#bounds)."""

    starts: tuple[str, ...]
    scope: CrawlScope
    max_pages: int  # URLs taken in to be requested, at most
    max_depth: int  # clicks from a start page
    page_bytes: int  # of each body, read at most (Google reads 2 MB)
    follow_nofollow: bool  # follow rel="nofollow" links too
    agent: str  # the crawl's own robots.txt agent (its User-Agent's product token)
    robots_agent: str  # --robots-agent: whose verdict a URL gets (Googlebot)
    workers: int


def crawl_plan(config: AuditConfig) -> CrawlPlan:
    """The crawl a run's options ask for: the targets' home pages first, then `--crawl-start`."""
    starts: list[str] = []
    for target in config.targets:
        parsed = parse_known(target.url) if target.path is None else None
        if parsed is not None and (home := f"{parsed[0].origin}/") not in starts:
            starts.append(home)
    starts += [url for url in config.crawl_starts if url not in starts]
    # RFC 9309 §2.2.1: a crawler matches groups by its product token, its User-Agent's first word.
    agent = config.user_agent.split("/", 1)[0].split()[0] if config.user_agent.strip() else "*"
    return CrawlPlan(
        starts=tuple(starts),
        scope=CrawlScope.of(starts, hosts=config.crawl_hosts),
        max_pages=config.crawl_max,
        max_depth=config.crawl_depth,
        page_bytes=config.crawl_page_bytes,
        follow_nofollow=config.crawl_nofollow,
        agent=agent,
        robots_agent=config.robots_agent,
        workers=config.concurrency,
    )


@dataclass(frozen=True, slots=True)
class CrawlSummary:
    """What the crawl (`--crawl`) did, sent to the sink once it is over (the report's coverage).

    Whether the crawl covered the site (`complete`): no bound stopped it, it was not stopped,
    and every page it reached was read or is kept from Google as from the crawl.
    """

    starts: tuple[str, ...]  # its start pages
    scope: tuple[str, ...]  # the origins it follows links into
    read: int = 0  # pages requested that answered (any status)
    unread: int = 0  # requested, and no page came (no answer, 5xx, 429, a bot shield)
    blocked: int = 0  # robots.txt keeps the crawl out (and Google too)
    hidden: int = 0  # robots.txt keeps the crawl's agent out, not --robots-agent's
    no_robots: int = 0  # on a host whose robots.txt could not be read: not requested
    nofollow: int = 0  # reached through rel="nofollow" links only: not requested
    depth: int = 0  # the deepest page read, in clicks from a start page
    bounds: tuple[str, ...] = ()  # the bounds that left URLs out: "pages", "depth"
    interrupted: bool = False
    sitemaps_read: bool = True  # every sitemap was read: a page in none of them is missing
    only_crawled: int = 0  # pages requested that no sitemap lists
    only_crawled_indexable: int = 0  # ... of them indexable HTML pages (not_in_sitemap)

    @property
    def complete(self) -> bool:
        """Whether the crawl covered the site: only then is a listed URL it missed an orphan."""
        left_out = self.unread or self.hidden or self.no_robots
        return bool(self.read) and not (self.bounds or self.interrupted or left_out)


@dataclass(slots=True)
class CoverageCounts:
    """The listed URLs as the sink passes them, and whether the crawl requested or reached them.

    An observer of the sink (auditor.results.sink.Observer).
    """

    listed: int = 0  # listed http(s) URLs
    crawled: int = 0  # listed URLs the crawl requested
    reached: int = 0  # listed URLs the crawl reached (a link to them) without requesting

    def add_url(self, record: UrlRecord) -> None:
        """One distinct URL."""
        if not record.listed:
            return
        if record.digest:
            self.listed += 1
        crawl = record.crawl
        if crawl is not None:
            self.crawled += crawl.requested
            self.reached += not crawl.requested

    def add_sitemap(self, record: SitemapRecord) -> None:
        """A document: nothing to count."""

"""What reading documents needs, made once per run: the opener, the tree, dedup, outlets."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from auditor.clock import Clock
from auditor.config import AuditConfig
from auditor.discovery.robots_fetch import RobotsCache
from auditor.models import FoundBy, Relisted, SitemapRecord, UrlRecord
from auditor.net.opener import Opener
from auditor.sitemap.document_tally import DocumentTally
from auditor.sitemap.extensions.hreflang import Cluster
from auditor.sitemap.parsers import InProcessParsers, Parsers
from auditor.sitemap.state_store import StateStore
from auditor.sitemap.tree_rules import Job, SitemapTree

EmitUrls = Callable[[list[UrlRecord]], Awaitable[None]]
EmitSitemap = Callable[[SitemapRecord | Relisted], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Lister:
    """A document that lists URLs, as dedup sees it: only sitemaps proper make duplicates.

    Google asks for both (Search Central blog, "Best practices for XML sitemaps and RSS/Atom
    feeds", 2014: "we recommend using both XML sitemaps and RSS/Atom feeds"): a URL in a sitemap
    and in a feed, or in two feeds (a post filed under two category feeds), is listed twice on
    purpose (docs/explanation/rules.md#duplicates).
    Two probed locations of one target are our guesses, not the site's submissions
    (docs/explanation/rules.md#probes).
    """

    url: str
    feed: bool = False  # an RSS or Atom feed
    probed_for: int | None = None  # the target it was probed for (None: named by someone)

    def repeats(self, first: Lister) -> bool:
        """Whether listing a URL `first` listed makes a duplicate the site should fix."""
        if first.feed or self.feed:  # loc.duplicate is for urlset and text sitemaps
            return False
        if first.url == self.url:
            return True
        return self.probed_for is None or first.probed_for != self.probed_for


class Clusters(Protocol):
    """Where the readers put each entry's hreflang cluster, judged run-wide at the end."""

    async def add(
        self, digest: int, loc: str, sitemap: str, cluster: Cluster, *, again: bool = False
    ) -> None:
        """One listing's cluster; `again`: the URL was listed before (links of both count)."""


class Listings(Protocol):
    """The run's URL dedup (auditor.results.dedup): who listed a URL first."""

    def first_listing(self, digest: int, lister: Lister) -> Lister | None:
        """Register `digest` as listed by `lister`; who listed it first, when someone did."""
        ...


@dataclass(frozen=True, slots=True)
class ReadServices:
    """What reading documents needs, made once per run by the walker."""

    config: AuditConfig
    opener: Opener
    robots: RobotsCache
    tree: SitemapTree
    dedup: Listings
    clock: Clock
    now: datetime
    enqueue: Callable[[Job], None]
    emit_urls: EmitUrls
    emit_sitemap: EmitSitemap
    state: StateStore | None = None  # --state: sitemaps' validators and kept bodies
    parsers: Parsers = field(default_factory=InProcessParsers)  # helpers: --workers, --no-check
    links: Clusters | None = None  # hreflang clusters, judged run-wide at the end
    # The documents probes found: (target, fingerprint) -> the first probe's URL.
    probed: dict[tuple[int, str], str] = field(default_factory=dict)

    def new_tally(
        self, url: str, *, parent: str | None, depth: int, found_by: FoundBy
    ) -> DocumentTally:
        """The tally of one document of this run."""
        keep, now = self.config.findings_per_sitemap, self.now
        return DocumentTally(url, parent=parent, depth=depth, found_by=found_by, keep=keep, now=now)

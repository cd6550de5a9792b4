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
from auditor.sitemap.parsers import InProcessParsers, Parsers
from auditor.sitemap.state_store import StateStore
from auditor.sitemap.tree_rules import Job, SitemapTree

EmitUrls = Callable[[list[UrlRecord]], Awaitable[None]]
EmitSitemap = Callable[[SitemapRecord | Relisted], Awaitable[None]]


class Listings(Protocol):
    """The run's URL dedup (auditor.results.dedup): which sitemap listed a URL first."""

    def first_listing(self, digest: int, sitemap: str) -> str | None:
        """Register `digest` as listed by `sitemap`; the first sitemap when it was listed before."""
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

    def new_tally(
        self, url: str, *, parent: str | None, depth: int, found_by: FoundBy
    ) -> DocumentTally:
        """The tally of one document of this run."""
        keep, now = self.config.findings_per_sitemap, self.now
        return DocumentTally(url, parent=parent, depth=depth, found_by=found_by, keep=keep, now=now)

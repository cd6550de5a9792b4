"""The entry side of reading one document: each validated entry counted, deduplicated, sent on.

URLs go out in batches as each piece is parsed (never a list of the whole document); index
children go to the tree as they are met; a URL off its sitemap's scope is waived when its host's
robots.txt cross-submits the sitemap (sitemaps.org). What the fetch side learns (where the
document really is) comes in through `located_at`.
"""

from __future__ import annotations

from dataclasses import replace

from auditor.codes import Code
from auditor.models import Finding, SitemapKind, UrlRecord, finding
from auditor.sitemap.document_tally import DocumentTally
from auditor.sitemap.parse.events import RootFound
from auditor.sitemap.read_services import Lister, ReadServices
from auditor.sitemap.tree_rules import Job
from auditor.sitemap.validated_entries import Validated, ValidatedSitemap, ValidatedUrl

_SCOPE_CODES = frozenset({Code.LOC_HOST_MISMATCH, Code.LOC_OUT_OF_SCOPE})
# URL records per batch to the sink: one chunk of a gzipped sitemap can hold ~10k entries, and the
# sink queue is bounded in batches, so this bounds the records waiting
# (docs/explanation/design.md#pipeline).
BATCH_RECORDS = 512
# Foreign origins whose robots.txt one document may consult for cross-submission.
_MAX_CROSS_ORIGINS = 16


class DocumentEntries:
    """What one document's entries add to the run: records, children, dedup, its tally."""

    def __init__(self, job: Job, services: ReadServices, tally: DocumentTally) -> None:
        self.job = job
        self._services = services
        self.tally = tally
        # This document (at its URL, and where it really is) and the indexes above it: what a
        # robots.txt Sitemap: line may name, and what a child may not lead back to.
        self.keys = frozenset({job.key}) | job.ancestors
        self._cross_submitted: dict[str, bool] = {}
        # Digests of URLs an earlier sitemap listed: their one check counts for this one too.
        self.relisted: set[int] = set()
        # The scope this document's entries answer to, as a prefix: a child index inherits it.
        self.scope_prefix: str | None = None
        probed_for = job.target if job.probed else None
        self._lister = Lister(job.url, probed_for=probed_for)

    def located_at(self, key: str) -> None:
        """The document turned out to be at `key` (after redirects) too."""
        self.keys |= {key}

    async def handle(self, entries: list[Validated]) -> None:
        """One parsed piece's entries."""
        batch: list[UrlRecord] = []
        for entry in entries:
            match entry:
                case ValidatedUrl():
                    record = await self._url_entry(entry)
                    if record is not None:
                        batch.append(record)
                    if len(batch) >= BATCH_RECORDS:
                        await self._services.emit_urls(batch)
                        batch = []
                case ValidatedSitemap():
                    await self._sitemap_entry(entry)
                case RootFound():
                    self._root(entry)
                case Finding():
                    self.tally.add(entry)
        if batch:
            await self._services.emit_urls(batch)

    def _root(self, event: RootFound) -> None:
        self.tally.kind = event.kind
        self.tally.news_sitemap = "news" in event.extensions
        if event.kind in (SitemapKind.RSS, SitemapKind.ATOM):
            self._lister = replace(self._lister, feed=True)
        index = event.kind is SitemapKind.SITEMAPINDEX
        if index and self.job.parent_kind is SitemapKind.SITEMAPINDEX:
            self.tally.add(finding(Code.INDEX_NESTED, parent=self.job.parent))

    async def _url_entry(self, entry: ValidatedUrl) -> UrlRecord | None:
        self.tally.count_entry(entry.lastmod, news=entry.news)
        findings = entry.findings
        if entry.waivable is not None and await self._waived(entry.waivable):
            findings = tuple(item for item in findings if item.code not in _SCOPE_CODES)
        if not entry.loc:
            for item in findings:
                self.tally.add(item)
            return None
        digest = entry.digest
        first = self._services.dedup.first_listing(digest, self._lister)
        links = self._services.links
        if entry.cluster is not None and links is not None:  # every listing's links count
            await links.add(digest, entry.loc, self.job.url, entry.cluster, again=first is not None)
        if first is not None:
            if self._lister.repeats(first):
                line = entry.line
                duplicate = finding(
                    Code.LOC_DUPLICATE, url=entry.loc, first_sitemap=first.url, line=line
                )
                self.tally.add(duplicate)
            for item in findings:
                self.tally.add(item)
            self.tally.relisted(entry.extensions)
            if first.url != self.job.url and not self._services.config.no_check:
                self.relisted.add(digest)
            return None
        return UrlRecord(
            entry.loc,
            (self.job.url,),
            entry.line,
            entry.lastmod,
            entry.changefreq,
            entry.priority,
            findings,
            digest=digest if entry.parsed else 0,
            extensions=entry.extensions,
        )

    async def _waived(self, origin: str) -> bool:
        """Whether the location rule is waived by a robots.txt cross-submission.

        sitemaps.org: the URL's host (`origin`) names this sitemap (or an index above it) in
        its robots.txt. A local file has no URL a robots.txt could name (DocumentValidator).
        """
        known = self._cross_submitted.get(origin)
        if known is not None:
            return known
        if len(self._cross_submitted) >= _MAX_CROSS_ORIGINS:
            return False
        fetched = await self._services.robots.get(origin, quick=True)
        robots = fetched.robots if fetched is not None else None
        known = self._cross_submitted[origin] = robots is not None and robots.names_any(self.keys)
        return known

    async def _sitemap_entry(self, entry: ValidatedSitemap) -> None:
        self.tally.count_entry(entry.lastmod)
        findings = entry.findings
        if entry.waivable is not None and await self._waived(entry.waivable):
            findings = tuple(item for item in findings if item.code not in _SCOPE_CODES)
        for item in findings:
            self.tally.add(item)
        if entry.key is None or entry.loc is None:
            return
        child = self._services.tree.add_child(
            self.job,
            loc=entry.loc,
            key=entry.key,
            parent_keys=self.keys,
            position=self.tally.entries,
            listed_under=self.scope_prefix,
        )
        if isinstance(child, Job):
            self._services.enqueue(child)
        elif child is not None:
            self.tally.add(child)

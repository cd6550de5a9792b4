"""The sitemaps held against the crawl: each listed URL joined with what the crawl found of it.

Once the crawl is over, every URL record the sitemaps give passes here before its check: a URL
the crawl requested carries the crawl's check (no second request: its verdict was judged as a
check judges it), its depth and the page linking to it; where the page's canonical leads is
judged then, by the crawl's check of that canonical when it made one (a canonical is requested
once a run: auditor.checks.visits). A listed URL no page links to is
`coverage.orphan`, only when the crawl covered the site; one deeper than `--deep-clicks` is
`coverage.deep`. Once every sitemap is read, the indexable pages the crawl read that no sitemap
lists are URL records of their own, `coverage.not_in_sitemap`. The rules:
docs/explanation/rules.md#coverage.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from auditor.checks.stage import CheckWatcher, joined
from auditor.checks.visits import Verdict, canonical_verdict
from auditor.codes import Code
from auditor.models import (
    CheckResult,
    CrawlFacts,
    Finding,
    SitemapRecord,
    TargetRecord,
    UrlRecord,
    finding,
)
from auditor.results.digest_table import DigestTable
from auditor.urls import DEFAULT_PORTS, index_twins, parse_http_url, parse_known, url_digest
from auditor.wings.crawl.crawl_records import CrawlSummary
from auditor.wings.crawl.crawler import Crawler
from auditor.wings.crawl.links import page_url
from auditor.wings.crawl.page_store import CrawlStore, Found
from auditor.wings.crawl.scope import CrawlScope

EmitUrls = Callable[[list[UrlRecord]], Awaitable[None]]
# (the page's URL, where its canonical leads) -> url.canonical_not_indexable, if it is
Leads = Callable[[str, str], Awaitable[list[Finding]]]
RECORDS_BATCH = 512  # pages only the crawl found, sent on at a time
_READ_ROWS = 2_000

# A document with these left entries unread, or may have: the site not reached, a robots.txt
# or sitemap that got no answer or an error that may pass (a 5xx, a 429, a 401 or 403), a body
# cut short (too large, corrupt, not well-formed), an index's children not followed. A page the
# crawl read may be listed in what was not read: none is called missing from the sitemaps
# (docs/explanation/rules.md#not-in-sitemap).
_UNREAD = frozenset(
    {
        Code.TARGET_DNS,
        Code.TARGET_CONNECT,
        Code.TARGET_TIMEOUT,
        Code.TARGET_TLS,
        Code.TARGET_PROTOCOL,
        Code.ROBOTS_UNREACHABLE,
        Code.NET_DNS,
        Code.NET_CONNECT,
        Code.NET_TIMEOUT,
        Code.NET_TLS,
        Code.NET_PROTOCOL,
        Code.SITEMAP_HTTP_ERROR,
        Code.SITEMAP_TOO_LARGE,
        Code.SITEMAP_COMPRESSION_ERROR,
        Code.XML_MALFORMED,
        Code.XML_FORBIDDEN,
        Code.XML_ENCODING,
        Code.INDEX_TOO_DEEP,
        Code.INDEX_TOO_MANY_SITEMAPS,
        Code.RUN_LIMIT_REACHED,
        Code.INTERNAL_ERROR,
    }
)
# A sitemap that is gone lists nothing, to Google as here: no entry of it is unread.
_GONE = frozenset({404, 410})


Site = tuple[str, int | None]


def site_of(url: str) -> Site | None:
    """The site an unread document may list pages of. Pure.

    Its host without `www.`, and its port unless a scheme's default (a sitemap on http:// may
    list https:// pages).
    """
    parsed = parse_http_url(url)
    return None if parsed is None else _site(parsed.scheme, parsed.host, parsed.port)


def _site(scheme: str, host: str, port: int) -> Site:
    return host.removeprefix("www."), None if port == DEFAULT_PORTS[scheme] else port


def leaves_unread(record: SitemapRecord | TargetRecord) -> bool:
    """Whether a document (or a target's discovery) may have left listed URLs unread. Pure."""
    codes = {item.code for item in record.findings}
    if isinstance(record, SitemapRecord) and record.status in _GONE:
        codes.discard(Code.SITEMAP_HTTP_ERROR)
    return not codes.isdisjoint(_UNREAD)


class Coverage:
    """Joins URL records with the finished crawl, then sends on the pages only it found."""

    def __init__(
        self,
        crawler: Crawler,
        store: CrawlStore,
        *,
        scope: CrawlScope,
        deep_clicks: int,
        listed: Callable[[int], bool],
        emit_checked: EmitUrls,
        emit: EmitUrls,
        leads: Leads,
        watchers: Sequence[CheckWatcher] = (),
    ) -> None:
        """Join with `crawler`'s pages, kept in `store`.

        `listed(digest)`: a sitemap lists the URL; `emit_checked`: records that carry the
        crawl's check (to the sink); `emit`: the others (to their checks, or the sink);
        `leads`: judges where a page's canonical leads (Checker.canonical_leads); `watchers`:
        shown each listed URL with the crawl's check, as the check stage shows the others
        (lastmod.behind_page, where alternates lead).
        """
        self._crawler = crawler
        self._store = store
        self._scope = scope
        self._deep = deep_clicks
        self._listed = listed
        self._emit_checked = emit_checked
        self._emit = emit
        self._leads = leads
        self._watchers = watchers
        self._complete = False
        self._walked = False  # `sitemaps_done` was told
        # The sites whose sitemaps were not all read whole; None: any site's may list any page.
        self._unread: set[Site] | None = set()
        self._sites = {_site(*origin) for origin in scope.origins}
        self._joined = DigestTable()  # unlisted URLs sent on already (hreflang alternates)

    async def crawled(self, *, interrupted: bool) -> None:
        """The crawl is over: write what it holds, and learn whether it covered the site."""
        await self._store.flush()
        self._complete = self._crawler.summary(interrupted=interrupted).complete

    @property
    def sitemaps_read(self) -> bool:
        """Whether the walk ended with every sitemap read whole."""
        return self._walked and self._unread == set()

    def saw_sitemap(self, record: SitemapRecord) -> None:
        """A document was read (or tried): note the sites it may have left pages unread of."""
        if leaves_unread(record):
            self._unread_at(record.url)
            if record.parent is not None:  # a sitemap cross-submitted by the parent's site
                self._unread_at(record.parent)

    def sitemaps_done(self, *, capped: bool, targets: Sequence[TargetRecord]) -> None:
        """The walk is over (said before the alternates are judged)."""
        self._walked = True
        if capped:
            self._unread = None
        for target in targets:
            if leaves_unread(target):
                self._unread_at(target.url)

    def _unread_at(self, url: str) -> None:
        site = site_of(url)
        if self._unread is None or site is None or site not in self._sites:
            self._unread = None  # another site's sitemap (a CDN's, say) may list any page
        else:
            self._unread.add(site)

    def _may_be_missing(self, url: str) -> bool:
        """Whether every sitemap that may list `url` was read whole."""
        return self._walked and self._unread is not None and site_of(url) not in self._unread

    async def submit(self, batch: list[UrlRecord]) -> None:
        """Join a batch of the sitemaps' records with the crawl; send each on its way."""
        crawler = self._crawler
        ids = {}
        for record in batch:
            if record.digest and (ident := crawler.reached(record.digest)) is not None:
                ids[record.digest] = ident
        found = await self._store.find(list(ids.values())) if ids else {}
        checked: list[UrlRecord] = []
        others: list[UrlRecord] = []
        for record in batch:
            ident = ids.get(record.digest)
            page = found.get(ident) if ident is not None else None
            if page is not None and not record.listed and await self._listed_twin(page):
                page = page._replace(indexable=False)  # the listed page, under another name
            joined_record = await self._joined_record(record, page)
            (checked if joined_record.check is not None else others).append(joined_record)
        if checked:
            await self._emit_checked(checked)
        if others:
            await self._emit(others)

    async def _joined_record(self, record: UrlRecord, page: Found | None) -> UrlRecord:
        if page is None:
            if record.listed and record.digest and self._complete and self._in_scope(record.loc):
                notice = finding(Code.COVERAGE_ORPHAN, url=record.loc)
                record.findings += (notice,)
            return record
        record.crawl = CrawlFacts(page.depth, page.linked_from, page.links, page.requested)
        if record.listed and page.depth > self._deep:
            deep = finding(Code.COVERAGE_DEEP, url=record.loc, depth=page.depth, limit=self._deep)
            record.findings += (deep,)
        elif not record.listed and page.requested:  # an hreflang alternate the crawl read
            self._joined.setdefault(record.digest, 1)
            if page.html and page.indexable and self._may_be_missing(record.loc):
                record.findings += (_not_in_sitemap(record.loc, page),)
        result = await self._result_of(page) if page.requested else None
        if result is not None:
            return joined([(record, result)], self._watchers)[0]
        return record

    async def _listed_twin(self, page: Found) -> bool:
        """Whether `page` is a listed page under another name, which the crawl read too.

        A folder and its index document (`/` and `/index.html`) that answer the same body.
        Servers answer a folder with its index document, and Google's robots.txt matcher reads
        `/index.html` as `/` (google/robotstxt, robots.cc); the same body is the same page
        (docs/explanation/rules.md#index-document). A canonical naming the other is judged by
        the page's own verdict (canonicalised).
        """
        if not (page.html and page.indexable and page.body is not None):
            return False
        parsed = parse_http_url(page.url)
        if parsed is None:
            return False
        ids = []
        for twin in index_twins(parsed):
            digest = url_digest(twin.key)
            if self._listed(digest) and (ident := self._crawler.reached(digest)) is not None:
                ids.append(ident)
        if not ids:
            return False
        found = await self._store.find(ids)
        return any(twin.body == page.body for twin in found.values())

    async def _result_of(self, page: Found) -> CheckResult | None:
        """The crawl's check of `page`, judged where its canonical leads."""
        result = page.result
        if result is None or page.canonical is None:
            return result
        leads = await self._leads(page.url, page.canonical)
        return replace(result, findings=(*result.findings, *leads)) if leads else result

    async def verdict_of(self, url: str) -> Verdict | None:
        """The verdict of `url` from the crawl's check of it; None when it did not request it."""
        requested = page_url(url)  # as the crawl keys what it reached
        known = parse_known(requested) if requested is not None else None
        ident = self._crawler.reached(known[1]) if known is not None else None
        if ident is None:
            return None
        page = (await self._store.find([ident])).get(ident)
        if page is None or not page.requested or page.result is None:
            return None
        return canonical_verdict(page.result)

    def _in_scope(self, loc: str) -> bool:
        parsed = parse_http_url(loc)
        return parsed is not None and self._scope.contains(parsed)

    async def finish(self, *, walked: bool, interrupted: bool) -> CrawlSummary:
        """Send on the pages the crawl read that no sitemap lists; the crawl's summary.

        The indexable HTML ones become URL records; `coverage.not_in_sitemap` only when the walk
        ended (`walked`) and every sitemap of the page's site was read whole (else one not read
        may list it).
        """
        self._walked = self._walked and walked
        await self._store.flush()
        only = indexable = 0
        after = 0
        batch: list[UrlRecord] = []
        while rows := await self._store.read_pages(after, _READ_ROWS):
            after = rows[-1].id
            for page in rows:
                if self._listed(page.digest) or await self._listed_twin(page):
                    continue
                only += 1
                if not (page.html and page.indexable):
                    continue
                indexable += 1
                if self._joined.get(page.digest) is not None:
                    continue
                result = await self._result_of(page)
                batch.append(_record(page, result, missing=self._may_be_missing(page.url)))
                if len(batch) >= RECORDS_BATCH:
                    await self._emit_checked(batch)
                    batch = []
        if batch:
            await self._emit_checked(batch)
        return replace(
            self._crawler.summary(interrupted=interrupted),
            sitemaps_read=self.sitemaps_read,
            only_crawled=only,
            only_crawled_indexable=indexable,
        )


def _not_in_sitemap(loc: str, page: Found) -> Finding:
    """The page's `coverage.not_in_sitemap`.

    Search Console: "Indexed, not submitted in sitemap"; Screaming Frog: "URLs Not In Sitemap"
    (indexable URLs only).
    """
    return finding(Code.COVERAGE_NOT_IN_SITEMAP, url=loc, depth=page.depth)


def _record(page: Found, result: CheckResult | None, *, missing: bool) -> UrlRecord:
    """A page only the crawl found, with its check and the finding that it is missing."""
    return UrlRecord(
        page.url,
        (),
        findings=(_not_in_sitemap(page.url, page),) if missing else (),
        check=result,
        digest=page.digest,
        crawl=CrawlFacts(page.depth, page.linked_from, page.links, requested=True),
    )

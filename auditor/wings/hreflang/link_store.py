"""hreflang across the run: every cluster kept on disk (sqlite), return links judged at the end.

Google Search Central, "Tell Google about localized versions of your page": "If two pages don't
both point to each other, the tags will be ignored." A site has millions of URLs with several
alternates each: the pairs live in a temporary sqlite file beside the report (in memory only
while a cluster's pages come, a batch at a time), and are joined once every sitemap is read.
x-default names a fallback, often a language chooser that no sitemap lists (Django's): it owes
no return link and is not reported. A page's own languages are the set of values naming it
(`x-default` beside `en`; Google: the generic page "can be one of the specific pages"), and a
URL listed in several entries names the union of their links.
"""

from __future__ import annotations

import asyncio
import sqlite3
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from auditor.codes import Code
from auditor.files import RunDatabase
from auditor.models import Finding, finding
from auditor.sitemap.extensions.hreflang import X_DEFAULT, Cluster, HreflangLink
from auditor.urls import digest_of_stored, stored_digest
from auditor.wings.hreflang import link_queries as sql

FLUSH_ROWS = 10_000  # rows gathered before a write (at the next new cluster): a thread hop each
_MAX_ROWS = 4 * FLUSH_ROWS  # written then even in the middle of a cluster
# A cluster still waiting for pages, opened within the last this many pages, is kept for the
# next write: documents read at once hand their entries over piece by piece, interleaved.
_YOUNG_PAGES = 2048
_NEAR_SHARE = 4  # copied out when the pages outnumber the written links this many times
_RECENT_CLUSTERS = 4096  # clusters written lately, and whether their links were left out


class _Open:
    """A cluster being gathered: its links, and those no page has settled yet."""

    __slots__ = ("links", "opened_at", "waiting", "whole")

    def __init__(self, links: tuple[HreflangLink, ...], opened_at: int) -> None:
        self.links = links
        self.opened_at = opened_at  # the number of pages added before it
        # (digest, language) of each link but x-default's, until its page comes
        self.waiting = {
            (link.digest, link.hreflang) for link in links if link.hreflang != X_DEFAULT
        }
        self.whole = False  # a page of it does not name itself: every link is written


@dataclass(slots=True)
class Unlisted:
    """An alternate no sitemap of the run lists: where it is named first."""

    href: str
    digest: int
    named_by: str  # the first URL naming it
    sitemap: str


@dataclass(slots=True)
class LinkVerdict:
    """What judging the run's clusters found besides its findings (which go out one by one).

    The alternates no sitemap lists: the first MAX_UNLISTED_KEPT kept (to check), all counted.
    """

    pages: int = 0  # URLs that name alternates
    links: int = 0
    unlisted: list[Unlisted] = field(default_factory=list)  # the first MAX_UNLISTED_KEPT
    unlisted_count: int = 0


MAX_BAD_KEPT = 1_000_000  # not-indexable URLs looked up among the alternates (9 MB at most)
MAX_UNLISTED_KEPT = 100_000  # alternates no sitemap lists, checked and reported; the rest counted


def links_path(report: Path) -> Path:
    """The stem of the store's temporary file: hidden beside the report (`--json`'s folder).

    The file itself is made new, under a random name (auditor.files.create_new).
    """
    return report.with_name(f".{report.name}.hreflang")


class LinkStore(RunDatabase):
    """The run's hreflang clusters, written as they are read; judged once the walk is over.

    An async context manager: the file is dropped when the run leaves it, however it ends.
    """

    def __init__(self, stem: Path) -> None:
        super().__init__(stem)
        self._pages: list[tuple[int, str, int, str | None, int, int]] = []
        self._open: dict[int, _Open] = {}  # the clusters being gathered, by signed key
        self._rows = 0  # rows gathered: pages, and the links of the open clusters
        self._recent: dict[int, bool] = {}  # written lately: signed key -> closed
        self._sitemaps: dict[str, int] = {}  # one per sitemap of the run, as UrlDedup's
        self._new_sitemaps: list[tuple[int, str]] = []
        self._lock = asyncio.Lock()
        self._again = False  # a URL was added twice: its rows make one page
        # URLs whose check says they are not indexable: signed digests, and why (an index into
        # _reasons): 9 bytes each.
        self._bad = array("q")
        self._bad_reasons = bytearray()
        self._reasons: dict[str, int] = {}
        self.pages = 0
        self.links = 0

    async def add(
        self, digest: int, loc: str, sitemap: str, cluster: Cluster, *, again: bool = False
    ) -> None:
        """One listing's cluster; `again`: the URL was listed before (links of both count)."""
        number = self._sitemaps.get(sitemap)
        if number is None:
            number = self._sitemaps[sitemap] = len(self._sitemaps)
            self._new_sitemaps.append((number, sitemap))
        key = stored_digest(cluster.key)
        opened = self._open.get(key)
        if opened is None and self._rows >= FLUSH_ROWS:  # between two clusters
            await self._flush()
        own = cluster.own
        languages = f" {' '.join(own)} " if own else None
        self._pages.append((stored_digest(digest), loc, number, languages, key, int(again)))
        self._again = self._again or again
        self._rows += 1
        if opened is None:
            closed = self._recent.get(key)
            # Met again: nothing to add, unless it was closed and this page breaks it.
            if closed is None or (closed and not own):
                opened = self._open[key] = _Open(cluster.links, self.pages)
                self._rows += len(cluster.links)
        if opened is not None:
            if not own:  # it does not name itself: the whole cluster is judged
                opened.whole = True
            for language in own:
                opened.waiting.discard((digest, language))
        self.pages += 1
        self.links += len(cluster.links)
        if self._rows >= _MAX_ROWS:
            await self._flush()

    async def _flush(self, *, final: bool = False) -> None:
        async with self._lock:
            members = self._members(young=self.pages if final else self.pages - _YOUNG_PAGES)
            rows = (self._pages, members, self._new_sitemaps)
            self._pages, self._new_sitemaps = [], []
            self._rows = sum(len(opened.links) for opened in self._open.values())
            await self.in_thread(self._write, *rows)

    def _members(self, *, young: int) -> list[tuple[int, int, str, str, int]]:
        """The rows of the clusters gathered, which are then forgotten but for being closed.

        Those opened after page number `young` that still wait for pages stay open (the
        youngest first, up to half a batch of links).
        """
        rows: list[tuple[int, int, str, str, int]] = []
        recent = self._recent
        kept: dict[int, _Open] = {}
        room = FLUSH_ROWS // 2
        for key, opened in reversed(self._open.items()):
            waiting = opened.waiting
            young_and_waiting = waiting and not opened.whole and opened.opened_at > young
            if young_and_waiting and len(opened.links) <= room:
                room -= len(opened.links)
                kept[key] = opened
                continue
            closed = not waiting and not opened.whole
            if len(recent) >= _RECENT_CLUSTERS:
                recent.clear()
            recent[key] = closed
            for link in opened.links:
                lang = link.hreflang
                if lang == X_DEFAULT:
                    rows.append((key, stored_digest(link.digest), lang, link.href, 0))
                elif not closed:
                    settled = int((link.digest, lang) not in waiting)
                    rows.append((key, stored_digest(link.digest), lang, link.href, settled))
        self._open = kept
        return rows

    def _write(
        self,
        pages: list[tuple[int, str, int, str | None, int, int]],
        members: list[tuple[int, int, str, str, int]],
        sitemaps: list[tuple[int, str]],
    ) -> None:
        db = self.connect(sql.SCHEMA)
        db.execute("BEGIN")  # one transaction per batch
        db.executemany("INSERT INTO pages VALUES (?, ?, ?, ?, ?, ?)", pages)
        db.executemany("INSERT INTO members VALUES (?, ?, ?, ?, ?)", members)
        db.executemany("INSERT INTO sitemaps VALUES (?, ?)", sitemaps)
        db.execute("COMMIT")

    async def judge(
        self, *, listed: Callable[[int], bool], report: Callable[[Finding], None]
    ) -> LinkVerdict:
        """Return links and language conflicts, once every sitemap is read.

        `listed(digest)`: whether a sitemap of the run lists the URL. A link to a listed URL
        that does not link back is `hreflang.no_return_link`; to a URL nobody lists, the
        return link may be in the page's HTML: the alternate is noted and, with checks, checked.
        """
        verdict = LinkVerdict(pages=self.pages, links=self.links)
        if not self.links:
            return verdict
        await self._flush(final=True)
        await self.in_thread(self._judge, listed, report, verdict)
        return verdict

    def _judge(
        self,
        listed: Callable[[int], bool],
        report: Callable[[Finding], None],
        verdict: LinkVerdict,
    ) -> None:
        assert self._db is not None
        db = self._db
        unsettled = db.execute(sql.UNSETTLED, (X_DEFAULT,)).fetchone()[0]
        if not unsettled and not db.execute(sql.SELFLESS).fetchone()[0]:
            return  # every page names itself, and each link was settled as it was written
        written = db.execute("SELECT COUNT(*) FROM members").fetchone()[0]
        if written * _NEAR_SHARE < self.pages:
            db.executescript(sql.NEAR.format(again=sql.NEAR_AGAIN if self._again else ""))
        db.executescript(sql.INDEXES)
        db.execute(sql.SUSPECTS, (X_DEFAULT,))
        sitemaps = {number: url for url, number in self._sitemaps.items()}
        for loc, sitemap, lang, href in db.execute(sql.NO_RETURN, (X_DEFAULT,)):
            report(_no_return(loc, sitemaps[sitemap], lang, href))
        unlisted = _UnlistedCount(db, verdict)
        for loc, sitemap, target, lang, href in db.execute(sql.NO_CLUSTER):
            digest = digest_of_stored(target)
            if listed(digest):  # listed without alternates: it names nobody back
                report(_no_return(loc, sitemaps[sitemap], lang, href))
            else:
                unlisted.add(Unlisted(href, digest, loc, sitemaps[sitemap]))
        unlisted.close()
        for loc, sitemap, lang, own, href in db.execute(sql.CONFLICTS):
            report(
                finding(
                    Code.HREFLANG_CONFLICTING_LANGUAGE,
                    url=loc,
                    sitemap=sitemaps[sitemap],
                    alternate=href,
                    hreflang=lang,
                    own=" ".join(sorted(set(own.split()))),
                )
            )

    def not_indexable(self, digest: int, reason: str) -> None:
        """A checked URL that is not indexable (its verdict, auditor.checks.indexability): why.

        The first MAX_BAD_KEPT are kept, as the run may name alternates later.
        """
        if len(self._bad) < MAX_BAD_KEPT:
            self._bad.append(stored_digest(digest))
            self._bad_reasons.append(self._reasons.setdefault(reason, len(self._reasons)))

    async def judge_targets(self, *, report: Callable[[Finding], None]) -> None:
        """hreflang.alternate_not_indexable for each alternate whose check said not indexable.

        Screaming Frog's hreflang "non-200" and "noindex return links": Google is pointed at a
        language version it will not index (docs/explanation/rules.md#hreflang-targets). Once
        every URL is checked.
        """
        if not self._bad or not self.links:
            return
        await self._flush(final=True)
        names = {number: reason for reason, number in self._reasons.items()}
        bad = [(page, names[n]) for page, n in zip(self._bad, self._bad_reasons, strict=True)]
        self._bad, self._bad_reasons = array("q"), bytearray()
        await self.in_thread(self._judge_targets, bad, report)

    def _judge_targets(self, bad: list[tuple[int, str]], report: Callable[[Finding], None]) -> None:
        assert self._db is not None
        db = self._db
        near = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'every_page'").fetchone()
        pages = "every_page" if near else "pages"
        db.execute("CREATE TABLE IF NOT EXISTS bad (page INTEGER PRIMARY KEY, reason TEXT)")
        db.executemany("INSERT OR IGNORE INTO bad VALUES (?, ?)", bad)
        db.executescript(sql.TARGET_INDEXES.format(pages=pages))
        sitemaps = {number: url for url, number in self._sitemaps.items()}
        for loc, sitemap, lang, href, reason in db.execute(sql.TARGETS.format(pages=pages)):
            code = Code.HREFLANG_ALTERNATE_NOT_INDEXABLE
            said = {"alternate": href, "hreflang": lang, "reason": reason}
            report(finding(code, url=loc, sitemap=sitemaps[sitemap], **said))


def _no_return(loc: str, sitemap: str, lang: str, href: str) -> Finding:
    code = Code.HREFLANG_NO_RETURN_LINK
    return finding(code, url=loc, sitemap=sitemap, alternate=href, hreflang=lang)


class _UnlistedCount:
    """The alternates no sitemap lists, each once.

    The first MAX_UNLISTED_KEPT are kept, the rest counted on disk: a set of millions of
    digests would not keep memory flat.
    """

    def __init__(self, db: sqlite3.Connection, verdict: LinkVerdict) -> None:
        self._db = db
        self._verdict = verdict
        self._seen: set[int] = set()
        self._beyond: list[tuple[int]] = []
        db.execute("CREATE TABLE beyond (target INTEGER PRIMARY KEY)")

    def add(self, alternate: Unlisted) -> None:
        seen = self._seen
        if alternate.digest in seen:
            return
        if len(seen) < MAX_UNLISTED_KEPT:
            seen.add(alternate.digest)
            self._verdict.unlisted.append(alternate)
            return
        self._beyond.append((stored_digest(alternate.digest),))
        if len(self._beyond) >= FLUSH_ROWS:
            self._db.executemany("INSERT OR IGNORE INTO beyond VALUES (?)", self._beyond)
            self._beyond = []

    def close(self) -> None:
        self._db.executemany("INSERT OR IGNORE INTO beyond VALUES (?)", self._beyond)
        beyond = self._db.execute("SELECT COUNT(*) FROM beyond").fetchone()[0]
        self._verdict.unlisted_count = len(self._seen) + beyond

"""hreflang across the run: every cluster kept on disk (sqlite), return links judged at the end.

Google Search Central, "Tell Google about localized versions of your page": "If two pages don't
both point to each other, the tags will be ignored." A site has millions of URLs with several
alternates each: the pairs live in a temporary sqlite file beside the report (in memory only
while a cluster's pages come, a batch at a time), and are joined once every sitemap is read.
x-default names a fallback, often a language chooser that no sitemap lists (Django's): it owes
no return link and is not reported.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from auditor.codes import Code
from auditor.files import RunDatabase
from auditor.models import Finding, finding
from auditor.sitemap.extensions.hreflang import X_DEFAULT, Cluster, Link

FLUSH_ROWS = 10_000  # rows gathered before a write (at the next new cluster): a thread hop each
_MAX_ROWS = 4 * FLUSH_ROWS  # written then even in the middle of a cluster
# A cluster still waiting for pages, opened within the last this many pages, is kept for the
# next write: documents read at once hand their entries over piece by piece, interleaved.
_YOUNG_PAGES = 2048
_SIGN = 1 << 63  # sqlite integers are signed 64-bit; digests are unsigned
_RECENT_CLUSTERS = 4096  # clusters written lately, and whether their links were left out
# One row per page naming alternates; one per link of each cluster (the set of links its pages
# name), gathered in memory while the cluster's pages come (most often one after another). A
# link is `settled` when the page it names came, in the same cluster, under the same language:
# nothing left to judge. A cluster whose every link settled while gathered, and whose every page
# names itself, is closed: its links are not written (a link to one of its pages from another
# set is judged on the pages, and none of them can be in that set), but for x-default's, which
# may be another set's return link. Tables are only appended to (a cluster met again after
# others pushed it out of memory is written again); indexes are made when the walk is over,
# and only when something is left to judge.
_SCHEMA = """
CREATE TABLE pages (page INTEGER, loc TEXT, sitemap INTEGER, own TEXT, cluster INTEGER);
CREATE TABLE members (cluster INTEGER, target INTEGER, lang TEXT, href TEXT, settled INTEGER);
CREATE TABLE sitemaps (id INTEGER PRIMARY KEY, url TEXT);
"""
# The only pages a judging query can reach: those of a written cluster, or named by one of its
# links. When the written links are few (most clusters closed as they were read), those pages
# are copied out in one scan, and only they are indexed: not the run's millions.
_NEAR = """
ALTER TABLE pages RENAME TO every_page;
CREATE TABLE pages AS SELECT * FROM every_page
WHERE cluster IN (SELECT cluster FROM members) OR page IN (SELECT target FROM members);
"""
_NEAR_SHARE = 4  # copied out when the pages outnumber the written links this many times
_INDEXES = """
CREATE INDEX pages_by_page ON pages (page);
CREATE INDEX pages_by_cluster ON pages (cluster);
CREATE INDEX members_by_cluster ON members (cluster, target);
"""
_UNSETTLED = "SELECT EXISTS (SELECT 1 FROM members WHERE settled = 0 AND lang != ?)"
_SELFLESS = "SELECT EXISTS (SELECT 1 FROM pages WHERE own IS NULL)"
# Page A names B (not x-default). The links that may owe a finding, each once (a cluster
# written twice has its rows twice): B is no page naming alternates, names another set, or
# calls itself another language. B naming the very set A names needs no look: A names itself.
_SUSPECTS = """
CREATE TABLE suspects AS
SELECT m.cluster, m.target, m.lang, MIN(m.href) AS href FROM members m
LEFT JOIN pages b ON b.page = m.target
WHERE m.settled = 0 AND m.lang != ?
AND (b.page IS NULL OR b.cluster != m.cluster OR b.own != m.lang)
GROUP BY m.cluster, m.target, m.lang
"""
# B names another set, which does not hold A. Each query reads the suspects first (CROSS JOIN
# keeps that order in SQLite), then their naming pages by index.
_OTHER_SETS = """
SELECT a.loc, s.url, m.lang, m.href FROM suspects m
CROSS JOIN pages b ON b.page = m.target AND b.cluster != m.cluster
CROSS JOIN pages a ON a.cluster = m.cluster AND a.page != m.target
CROSS JOIN sitemaps s ON s.id = a.sitemap
WHERE NOT EXISTS (SELECT 1 FROM members r WHERE r.cluster = b.cluster AND r.target = a.page)
"""
# A does not name itself: B, naming the same set, cannot name A.
_NOT_SELF = """
SELECT a.loc, s.url, m.lang, MIN(m.href) FROM pages a
CROSS JOIN members m ON m.cluster = a.cluster AND m.target != a.page
CROSS JOIN pages b ON b.page = m.target AND b.cluster = m.cluster
CROSS JOIN sitemaps s ON s.id = a.sitemap
WHERE a.own IS NULL AND m.lang != ?
GROUP BY a.page, m.target, m.lang
"""
# B is no page naming alternates: listed without hreflang (no return link), or nowhere.
_NO_CLUSTER = """
SELECT a.loc, s.url, m.target, m.lang, m.href FROM suspects m
CROSS JOIN pages a ON a.cluster = m.cluster AND a.page != m.target
CROSS JOIN sitemaps s ON s.id = a.sitemap
WHERE NOT EXISTS (SELECT 1 FROM pages b WHERE b.page = m.target)
"""
# A names B as language L, where B calls itself M.
_CONFLICTS = """
SELECT a.loc, s.url, m.lang, b.own, m.href FROM suspects m
CROSS JOIN pages b ON b.page = m.target AND b.own IS NOT NULL AND b.own != m.lang
CROSS JOIN pages a ON a.cluster = m.cluster AND a.page != m.target
CROSS JOIN sitemaps s ON s.id = a.sitemap
"""


class _Open:
    """A cluster being gathered: its links, and those no page has settled yet."""

    __slots__ = ("links", "opened_at", "waiting", "whole")

    def __init__(self, links: tuple[Link, ...], opened_at: int) -> None:
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


MAX_UNLISTED_KEPT = 100_000  # alternates no sitemap lists, checked and reported; the rest counted


def store_path(report: Path) -> Path:
    """The store's temporary file: hidden beside the report (`--json PATH`'s folder)."""
    return report.with_name(f".{report.name}.hreflang.sqlite")


class LinkStore(RunDatabase):
    """The run's hreflang clusters, written as they are read; judged once the walk is over.

    An async context manager: the file is dropped when the run leaves it, however it ends.
    """

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._pages: list[tuple[int, str, int, str | None, int]] = []
        self._open: dict[int, _Open] = {}  # the clusters being gathered, by signed key
        self._rows = 0  # rows gathered: pages, and the links of the open clusters
        self._recent: dict[int, bool] = {}  # written lately: signed key -> closed
        self._sitemaps: dict[str, int] = {}  # one per sitemap of the run, as UrlDedup's
        self._new_sitemaps: list[tuple[int, str]] = []
        self._lock = asyncio.Lock()
        self.pages = 0
        self.links = 0

    async def add(self, digest: int, loc: str, sitemap: str, cluster: Cluster) -> None:
        """One URL's cluster (the first listing of a URL: a later one adds nothing)."""
        number = self._sitemaps.get(sitemap)
        if number is None:
            number = self._sitemaps[sitemap] = len(self._sitemaps)
            self._new_sitemaps.append((number, sitemap))
        key = _signed(cluster.key)
        opened = self._open.get(key)
        if opened is None and self._rows >= FLUSH_ROWS:  # between two clusters
            await self._flush()
        own = cluster.own
        self._pages.append((_signed(digest), loc, number, own, key))
        self._rows += 1
        if opened is None:
            closed = self._recent.get(key)
            # Met again: nothing to add, unless it was closed and this page breaks it.
            if closed is None or (closed and own is None):
                opened = self._open[key] = _Open(cluster.links, self.pages)
                self._rows += len(cluster.links)
        if opened is not None:
            if own is None:  # it does not name itself: the whole cluster is judged
                opened.whole = True
            else:
                opened.waiting.discard((digest, own))
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
            await asyncio.to_thread(self._write, *rows)

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
                    rows.append((key, _signed(link.digest), lang, link.href, 0))
                elif not closed:
                    settled = int((link.digest, lang) not in waiting)
                    rows.append((key, _signed(link.digest), lang, link.href, settled))
        self._open = kept
        return rows

    def _write(
        self,
        pages: list[tuple[int, str, int, str | None, int]],
        members: list[tuple[int, int, str, str, int]],
        sitemaps: list[tuple[int, str]],
    ) -> None:
        db = self.connect(_SCHEMA)
        db.execute("BEGIN")  # one transaction per batch
        db.executemany("INSERT INTO pages VALUES (?, ?, ?, ?, ?)", pages)
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
        await asyncio.to_thread(self._judge, listed, report, verdict)
        return verdict

    def _judge(
        self,
        listed: Callable[[int], bool],
        report: Callable[[Finding], None],
        verdict: LinkVerdict,
    ) -> None:
        assert self._db is not None
        db = self._db
        unsettled = db.execute(_UNSETTLED, (X_DEFAULT,)).fetchone()[0]
        if not unsettled and not db.execute(_SELFLESS).fetchone()[0]:
            return  # every page names itself, and each link was settled as it was written
        written = db.execute("SELECT COUNT(*) FROM members").fetchone()[0]
        if written * _NEAR_SHARE < self.pages:
            db.executescript(_NEAR)
        db.executescript(_INDEXES)
        db.execute(_SUSPECTS, (X_DEFAULT,))
        for query, parameters in ((_OTHER_SETS, ()), (_NOT_SELF, (X_DEFAULT,))):
            for loc, sitemap, lang, href in db.execute(query, parameters):
                report(_no_return(loc, sitemap, lang, href))
        unlisted = _UnlistedCount(db, verdict)
        for loc, sitemap, target, lang, href in db.execute(_NO_CLUSTER):
            digest = _unsigned(target)
            if listed(digest):  # listed without alternates: it names nobody back
                report(_no_return(loc, sitemap, lang, href))
            else:
                unlisted.add(Unlisted(href, digest, loc, sitemap))
        unlisted.close()
        for loc, sitemap, lang, own, href in db.execute(_CONFLICTS):
            report(
                finding(
                    Code.HREFLANG_CONFLICTING_LANGUAGE,
                    url=loc,
                    sitemap=sitemap,
                    alternate=href,
                    hreflang=lang,
                    own=own,
                )
            )


def _no_return(loc: str, sitemap: str, lang: str, href: str) -> Finding:
    code = Code.HREFLANG_NO_RETURN_LINK
    return finding(code, url=loc, sitemap=sitemap, alternate=href, hreflang=lang)


def _signed(digest: int) -> int:
    return digest - _SIGN


def _unsigned(value: int) -> int:
    return value + _SIGN


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
        self._beyond.append((_signed(alternate.digest),))
        if len(self._beyond) >= FLUSH_ROWS:
            self._db.executemany("INSERT OR IGNORE INTO beyond VALUES (?)", self._beyond)
            self._beyond = []

    def close(self) -> None:
        self._db.executemany("INSERT OR IGNORE INTO beyond VALUES (?)", self._beyond)
        beyond = self._db.execute("SELECT COUNT(*) FROM beyond").fetchone()[0]
        self._verdict.unlisted_count = len(self._seen) + beyond

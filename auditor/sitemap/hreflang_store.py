"""hreflang across the run: every cluster kept on disk (sqlite), return links judged at the end.

Google Search Central, "Tell Google about localized versions of your page": "If two pages don't
both point to each other, the tags will be ignored." A site has millions of URLs with several
alternates each: the pairs live in a temporary sqlite file beside the report, never in memory,
and are joined by an index once every sitemap is read. x-default names a fallback, often a
language chooser that no sitemap lists (Django's): it owes no return link and is not reported.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

from auditor.codes import Code
from auditor.models import Finding, finding
from auditor.sitemap.extensions.hreflang import X_DEFAULT, Cluster

FLUSH_ROWS = 20_000  # rows buffered before a write: each write is a thread hop
_SIGN = 1 << 63  # sqlite integers are signed 64-bit; digests are unsigned
_RECENT_CLUSTERS = 4096  # clusters just written: not written again (their pages come together)
# One row per page naming alternates, one per link of each distinct cluster (the set of links
# its pages name: most often every page of a cluster names the same set), written once: each
# batch's members go through `staging`, and only clusters not yet in `clusters` are kept.
# Tables without keys are appended to; their indexes are made once, when the walk is over.
_SCHEMA = """
CREATE TABLE pages (page INTEGER, loc TEXT, sitemap INTEGER, own TEXT, cluster INTEGER);
CREATE TABLE members (cluster INTEGER, target INTEGER, lang TEXT, href TEXT);
CREATE TABLE staging (cluster INTEGER, target INTEGER, lang TEXT, href TEXT);
CREATE TABLE clusters (cluster INTEGER PRIMARY KEY);
CREATE TABLE sitemaps (id INTEGER PRIMARY KEY, url TEXT);
"""
_NEW_MEMBERS = """
INSERT INTO members SELECT DISTINCT * FROM staging
WHERE cluster NOT IN (SELECT cluster FROM clusters);
INSERT OR IGNORE INTO clusters SELECT cluster FROM staging;
DELETE FROM staging;
"""
_INDEXES = """
CREATE INDEX pages_by_page ON pages (page);
CREATE INDEX pages_by_cluster ON pages (cluster);
CREATE INDEX members_by_cluster ON members (cluster, target);
"""
# Page A names B (not x-default). B links back when B's cluster holds A: at once when B names
# the very set A names and A is in it (A names itself); else looked up. Each query reads the
# members first (CROSS JOIN keeps that order in SQLite), so that only the rare members that
# need a look go on to their naming pages: one pass of index look-ups over the members.
# B names another set:
_OTHER_SETS = """
SELECT a.loc, s.url, m.lang, m.href FROM members m
CROSS JOIN pages b ON b.page = m.target AND b.cluster != m.cluster
CROSS JOIN pages a ON a.cluster = m.cluster AND a.page != m.target
CROSS JOIN sitemaps s ON s.id = a.sitemap
WHERE m.lang != ?
AND NOT EXISTS (SELECT 1 FROM members r WHERE r.cluster = b.cluster AND r.target = a.page)
"""
# A does not name itself: B, naming the same set, cannot name A.
_NOT_SELF = """
SELECT a.loc, s.url, m.lang, m.href FROM pages a
CROSS JOIN members m ON m.cluster = a.cluster AND m.target != a.page
CROSS JOIN pages b ON b.page = m.target AND b.cluster = m.cluster
CROSS JOIN sitemaps s ON s.id = a.sitemap
WHERE a.own IS NULL AND m.lang != ?
"""
# B is no page naming alternates: listed without hreflang (no return link), or nowhere.
_NO_CLUSTER = """
SELECT a.loc, s.url, m.target, m.lang, m.href FROM members m
CROSS JOIN pages a ON a.cluster = m.cluster AND a.page != m.target
CROSS JOIN sitemaps s ON s.id = a.sitemap
WHERE m.lang != ? AND NOT EXISTS (SELECT 1 FROM pages b WHERE b.page = m.target)
"""
# A names B as language L, where B calls itself M.
_CONFLICTS = """
SELECT a.loc, s.url, m.lang, b.own, m.href FROM members m
CROSS JOIN pages b ON b.page = m.target AND b.own IS NOT NULL AND b.own != m.lang
CROSS JOIN pages a ON a.cluster = m.cluster AND a.page != m.target
CROSS JOIN sitemaps s ON s.id = a.sitemap
WHERE m.lang != ?
"""


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


class LinkStore:
    """The run's hreflang clusters, written as they are read; judged once the walk is over.

    An async context manager: the file is dropped when the run leaves it, however it ends.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._pages: list[tuple[int, str, int, str | None, int]] = []
        self._members: list[tuple[int, int, str, str]] = []
        self._sitemaps: dict[str, int] = {}  # one per sitemap of the run, as UrlDedup's
        self._new_sitemaps: list[tuple[int, str]] = []
        self._recent: set[int] = set()
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
        self._pages.append((_signed(digest), loc, number, cluster.own, key))
        recent = self._recent
        if key not in recent:
            if len(recent) >= _RECENT_CLUSTERS:
                recent.clear()
            recent.add(key)
            self._members += (
                (key, _signed(link.digest), link.hreflang, link.href) for link in cluster.links
            )
        self.pages += 1
        self.links += len(cluster.links)
        if len(self._pages) + len(self._members) >= FLUSH_ROWS:
            await self._flush()

    async def _flush(self) -> None:
        async with self._lock:
            rows = (self._pages, self._members, self._new_sitemaps)
            self._pages, self._members, self._new_sitemaps = [], [], []
            await asyncio.to_thread(self._write, *rows)

    def _write(
        self,
        pages: list[tuple[int, str, int, str | None, int]],
        members: list[tuple[int, int, str, str]],
        sitemaps: list[tuple[int, str]],
    ) -> None:
        if self._db is None:
            self.path.unlink(missing_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _SCHEMA)
        self._db.execute("BEGIN")  # one transaction per batch
        self._db.executemany("INSERT INTO pages VALUES (?, ?, ?, ?, ?)", pages)
        self._db.executemany("INSERT INTO staging VALUES (?, ?, ?, ?)", members)
        for statement in _NEW_MEMBERS.split(";")[:-1]:  # executescript would commit
            self._db.execute(statement)
        self._db.executemany("INSERT INTO sitemaps VALUES (?, ?)", sitemaps)
        self._db.execute("COMMIT")

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
        await self._flush()
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
        db.executescript(_INDEXES)
        for query in (_OTHER_SETS, _NOT_SELF):
            for loc, sitemap, lang, href in db.execute(query, (X_DEFAULT,)):
                report(_no_return(loc, sitemap, lang, href))
        unlisted = _UnlistedCount(db, verdict)
        for loc, sitemap, target, lang, href in db.execute(_NO_CLUSTER, (X_DEFAULT,)):
            digest = _unsigned(target)
            if listed(digest):  # listed without alternates: it names nobody back
                report(_no_return(loc, sitemap, lang, href))
            else:
                unlisted.add(Unlisted(href, digest, loc, sitemap))
        unlisted.close()
        for loc, sitemap, lang, own, href in db.execute(_CONFLICTS, (X_DEFAULT,)):
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

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Drop the file: it only lives as long as the run."""
        if self._db is not None:
            db, self._db = self._db, None
            await asyncio.to_thread(db.close)
        with contextlib.suppress(OSError):
            await asyncio.to_thread(self.path.unlink, missing_ok=True)


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

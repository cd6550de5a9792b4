"""The crawl on disk: its frontier past a few thousand URLs, and every URL it reached (sqlite).

A crawl of a million pages reaches millions of URLs: what waits to be read, and what was
read (the page's check, its depth, who linked to it), lives in a temporary sqlite file beside
the report; memory holds only a bounded head and tail of the frontier and the rows not yet
written. Rows are only appended, by row id (the id the seen set keeps, auditor.wings.crawl.crawler),
so every look-up is by rowid and no index is built. Every query runs in a thread.
"""

from __future__ import annotations

import asyncio
import pickle
import sqlite3
import zlib
from collections import deque
from collections.abc import Iterable, Sequence
from enum import IntEnum
from pathlib import Path
from typing import NamedTuple

from auditor.files import RunDatabase
from auditor.models import CheckResult
from auditor.processes.check_pool import PackedResult, pack_result, unpack_result

QUEUE_MEMORY = 20_000  # frontier rows held in memory before the newest go to disk
QUEUE_READ = 4_096  # rows read back from disk at a time
ROWS_BATCH = 2_000  # reached URLs written at a time (one thread hop each)
_SCHEMA = """
CREATE TABLE queue (id INTEGER PRIMARY KEY, url TEXT, digest INTEGER, depth INTEGER,
                    referrer INTEGER);
CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT, digest INTEGER, depth INTEGER,
                   referrer INTEGER, state INTEGER, html INTEGER, links INTEGER,
                   indexable INTEGER, result BLOB, canonical TEXT, body INTEGER);
"""
_SIGN = 1 << 63  # sqlite integers are signed 64-bit; digests are unsigned
_SELECT = (
    "SELECT u.id, u.url, u.digest, u.depth, r.url, u.state, u.html, u.links, u.indexable, "
    "u.result, u.canonical, u.body FROM urls u LEFT JOIN urls r ON r.id = u.referrer WHERE "
)


class State(IntEnum):
    """What the crawl did with a URL it reached."""

    READ = 1  # requested, and answered (whatever the status)
    UNREAD = 2  # requested, and no page came: no answer, 5xx, 429, a bot shield
    BLOCKED = 3  # robots.txt keeps the crawl's agent out: not requested
    NOFOLLOW = 4  # only rel="nofollow" links (or a nofollow page) lead to it: not requested
    NO_ROBOTS = 5  # its host's robots.txt could not be read: a crawler must not go there


class Queued(NamedTuple):
    """A URL waiting in the frontier."""

    id: int
    url: str
    digest: int
    depth: int
    referrer: int  # the id of the page linking to it; 0 for a start page


class Reached(NamedTuple):
    """A URL the crawl reached, as written: its check when it was requested."""

    id: int
    url: str
    digest: int
    depth: int
    referrer: int
    state: State
    html: bool
    links: int | None
    indexable: bool
    result: CheckResult | None
    canonical: str | None = None  # where the page's canonical leads, judged once it is joined
    body: int | None = None  # the body's fingerprint (`body_fingerprint`), a page's that answered


class Found(NamedTuple):
    """A reached URL read back, its referrer's URL resolved."""

    id: int
    url: str
    digest: int
    depth: int
    linked_from: str | None
    state: State
    html: bool
    links: int | None
    indexable: bool
    result: CheckResult | None
    canonical: str | None = None  # where the page's canonical leads (another URL)
    body: int | None = None

    @property
    def requested(self) -> bool:
        """Whether the crawl requested it (its check is kept)."""
        return self.state in (State.READ, State.UNREAD)


class CrawlStore(RunDatabase):
    """The frontier (first in, first out: the crawl goes depth by depth) and the reached URLs.

    An async context manager: the file is dropped when the run leaves it, however it ends.
    """

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        # Taken before the head: URLs of the level being read, queued while it is read (where
        # a redirect leads). A page queues one at most, and they are taken first: about as
        # many as pages in flight wait here.
        self._now: deque[Queued] = deque()
        self._head: deque[Queued] = deque()  # the oldest queued, read back or never written
        self._tail: list[Queued] = []  # the newest queued, not written
        self._spilled = 0  # the last queue id written to disk
        self._cursor = 0  # the last queue id read back from disk
        self._rows: list[tuple[object, ...]] = []  # reached URLs not written yet
        self._lock = asyncio.Lock()
        self.queued = 0  # waiting, in memory or on disk

    # --- the frontier --------------------------------------------------------------------------

    async def push(self, item: Queued, *, first: bool = False) -> None:
        """Queue one URL (ids only ever grow); the tail goes to disk when it is long.

        `first`: ahead of every URL queued (one of the level being read), never on disk.
        """
        self.queued += 1
        if first:
            self._now.append(item)
            return
        self._tail.append(item)
        if len(self._tail) >= QUEUE_MEMORY:
            async with self._lock:
                tail, self._tail = self._tail, []
                if tail:
                    await self.in_thread(self._spill, tail)
                    self._spilled = tail[-1].id

    def peek(self) -> Queued | None:
        """The next URL, if it is in memory (`refill` first otherwise)."""
        if self._now:
            return self._now[0]
        return self._head[0] if self._head else None

    def pop(self) -> Queued:
        """Take the URL `peek` showed."""
        self.queued -= 1
        return self._now.popleft() if self._now else self._head.popleft()

    async def refill(self) -> bool:
        """Bring the next queued URLs into memory; False when none waits."""
        async with self._lock:
            if self._now or self._head:
                return True
            if self._cursor < self._spilled:
                rows = await self.in_thread(self._read_queue, self._cursor)
                self._head.extend(rows)
                self._cursor = rows[-1].id if rows else self._spilled
            elif self._tail:
                self._head.extend(self._tail)
                self._tail = []
            return bool(self._head)

    # --- the reached URLs ----------------------------------------------------------------------

    async def add(self, reached: Reached) -> None:
        """Keep one reached URL; written with the next batch."""
        result = reached.result
        blob = pickle.dumps(pack_result(0, result)) if result is not None else None
        self._rows.append(
            (
                reached.id,
                reached.url,
                reached.digest - _SIGN,
                reached.depth,
                reached.referrer,
                int(reached.state),
                int(reached.html),
                reached.links,
                int(reached.indexable),
                blob,
                reached.canonical,
                reached.body,
            )
        )
        if len(self._rows) >= ROWS_BATCH:
            await self.flush()

    async def flush(self) -> None:
        """Write the reached URLs kept so far."""
        async with self._lock:
            rows, self._rows = self._rows, []
            if rows:
                await self.in_thread(self._write, rows)

    async def find(self, ids: Sequence[int]) -> dict[int, Found]:
        """The reached URLs of these ids (written already: `flush` first)."""
        if not ids or self._db is None:
            return {}
        return await self.in_thread(self._find, list(ids))

    async def read_pages(self, after: int, limit: int) -> list[Found]:
        """Requested URLs (read or not) with ids above `after`, in id order, up to `limit`."""
        if self._db is None:
            return []
        return await self.in_thread(self._read_pages, after, limit)

    # --- in the thread -------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        return self.connect(_SCHEMA)

    def _spill(self, rows: Iterable[Queued]) -> None:
        db = self._open()
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO queue VALUES (?, ?, ?, ?, ?)",
            ((q.id, q.url, q.digest - _SIGN, q.depth, q.referrer) for q in rows),
        )
        db.execute("COMMIT")

    def _read_queue(self, after: int) -> list[Queued]:
        db = self._open()
        found = db.execute(
            "SELECT id, url, digest, depth, referrer FROM queue WHERE id > ? ORDER BY id LIMIT ?",
            (after, QUEUE_READ),
        ).fetchall()
        return [Queued(i, url, digest + _SIGN, depth, ref) for i, url, digest, depth, ref in found]

    def _write(self, rows: list[tuple[object, ...]]) -> None:
        db = self._open()
        db.execute("BEGIN")
        db.executemany("INSERT INTO urls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        db.execute("COMMIT")

    def _find(self, ids: list[int]) -> dict[int, Found]:
        found: dict[int, Found] = {}
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            where = f"u.id IN ({','.join('?' * len(part))})"
            for row in self._select(where, part):
                found[row.id] = row
        return found

    def _read_pages(self, after: int, limit: int) -> list[Found]:
        where = "u.id > ? AND u.state IN (?, ?) ORDER BY u.id LIMIT ?"
        return self._select(where, (after, State.READ, State.UNREAD, limit))

    def _select(self, where: str, parameters: Sequence[object]) -> list[Found]:
        db = self._open()
        query = _SELECT + where
        return [
            Found(
                ident,
                url,
                digest + _SIGN,
                depth,
                referrer,
                State(state),
                bool(html),
                links,
                bool(indexable),
                _result(blob),
                canonical,
                body,
            )
            for (ident, url, digest, depth, referrer, state, html, links, indexable, blob,
                 canonical, body) in db.execute(query, parameters)
        ]  # fmt: skip


def body_fingerprint(body: bytes) -> int:
    """What tells two bodies apart: their length and CRC-32.

    A few GB/s; ample to compare the two names of one folder's document
    (auditor.wings.crawl.coverage).
    """
    return len(body) << 32 | zlib.crc32(body)


def _result(blob: bytes | None) -> CheckResult | None:
    if blob is None:
        return None
    packed: PackedResult = pickle.loads(blob)  # noqa: S301 - our own rows, written by this run
    return unpack_result(packed)[1]


def pages_path(report: Path) -> Path:
    """The stem of the crawl's temporary file: hidden beside the JSON report.

    The file itself is made new, under a random name (auditor.files.create_new).
    """
    return report.with_name(f".{report.name}.crawl")

"""`--baseline`: the baseline's URLs and this run's, joined in a sqlite file beside the report.

Two 1M-URL runs never meet in memory: the baseline report is read into one table as a stream
(auditor.wings.baseline.baseline_reader), this run's records into another as they pass the
sink, a batch at a time in a worker thread, and the join runs once at the end, handing the rows
that may differ to auditor.wings.baseline.compare. The regressions go to a table of their own,
which JUnit reads back one case at a time. An async context manager: the file goes when the run
is done.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple, Self

import orjson

from auditor.files import scratch_database, transaction, written
from auditor.models import RunFindings, SitemapRecord, TargetRecord, UrlRecord
from auditor.report.section import Regression
from auditor.urls import digest_of_stored, stored_digest
from auditor.wings.baseline.compare import (
    MAX_EXAMPLES,
    BaselineHead,
    Gate,
    Tally,
    UrlChange,
    compare_urls,
)
from auditor.wings.baseline.comparison_rows import (
    Key,
    UrlFacts,
    run_keys,
    sitemap_keys,
    target_keys,
    url_facts,
)
from auditor.wings.baseline.diff_section import DiffSection

FLUSH_ROWS = 10_000  # rows gathered before a write (a thread hop each)


class Document(NamedTuple):
    """A document of the baseline."""

    url: str


class Field(NamedTuple):
    """A closing field the baseline has (`summary` tells a complete report)."""

    name: str


BaselineRow = UrlFacts | Key | Document | Field
CACHE_KIB = 8_192  # sqlite's page cache: the join's memory, whatever the number of URLs
# A URL's row: its digest, what is compared (`facts`: equal text, nothing changed), and where
# it is (`place`: its URL, sitemap and line). Tables are only appended to; their indexes are
# made once, when the join needs them (random inserts into an index cost three times as much).
_SCHEMA = """
CREATE TABLE base_urls (digest, facts, place);
CREATE TABLE urls (digest, facts, place);
CREATE TABLE base_keys (kind, subject, code, entry);
CREATE TABLE keys (kind, subject, code, entry);
CREATE TABLE base_documents (url);
CREATE TABLE documents (url);
CREATE TABLE regressions (
    kind, subject, codes, verdict, sitemap, line, PRIMARY KEY (kind, subject)
) WITHOUT ROWID;
"""
_INDEXES = """
CREATE UNIQUE INDEX IF NOT EXISTS base_urls_by_digest ON base_urls (digest);
CREATE UNIQUE INDEX IF NOT EXISTS urls_by_digest ON urls (digest);
"""
# What each kind of row of a report goes into, and its placeholders.
_TABLES = ((UrlFacts, "urls", "?, ?, ?"), (Key, "keys", "?, ?, ?, ?"), (Document, "documents", "?"))
# Our own reports list a URL once; should one not, its first entry counts.
_ONCE = "DELETE FROM {0} WHERE rowid NOT IN (SELECT min(rowid) FROM {0} GROUP BY digest)"
# The URLs of this run that may differ from the baseline's (those that do are told by compare).
_JOINED = """
SELECT u.digest, u.facts, u.place, b.digest IS NOT NULL, b.facts, b.place
FROM urls u LEFT JOIN base_urls b ON b.digest = u.digest
WHERE b.digest IS NULL OR u.facts != b.facts
"""
_REMOVED = """
SELECT digest, facts, place FROM base_urls b
WHERE NOT EXISTS (SELECT 1 FROM urls u WHERE u.digest = b.digest)
"""
_KEY_DIFF = "SELECT kind, subject, code, entry FROM {0} EXCEPT SELECT * FROM {1}"
_DOCUMENT_DIFF = "SELECT url FROM {0} EXCEPT SELECT url FROM {1} ORDER BY url"
_ADD_REGRESSION = """
INSERT INTO regressions VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (kind, subject) DO UPDATE
SET codes = trim(codes || ' ' || excluded.codes), verdict = coalesce(verdict, excluded.verdict)
"""
_REGRESSIONS = "SELECT kind, subject, codes, verdict, sitemap, line FROM regressions"


class Comparison:
    """This run's records against a baseline, joined on disk; a RecordWriter for the sink."""

    def __init__(self, folder: Path, *, head: BaselineHead, gate: Gate) -> None:
        """A new store in `folder` (the report's): a hidden file only this run can open."""
        self.head = head
        self.gate = gate
        with written(f"the comparison's scratch file in {folder}"):
            self.path, self._db = scratch_database(
                folder, prefix=".compare-", cache_kib=CACHE_KIB, schema=_SCHEMA
            )
        self._urls: list[tuple[int, str, str]] = []
        self._keys: list[Key] = []
        self._documents: list[tuple[str]] = []
        self._lock = asyncio.Lock()
        self.regressions = 0
        self._base_listed: Counter[str] = Counter()  # the baseline's URLs by their sitemap

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # --- the baseline, read before the run (blocking: auditor.wings.baseline.baseline_reader) ---

    def add_baseline(self, rows: Iterable[BaselineRow], *, current: bool = False) -> set[str]:
        """A report's rows, written in batches; the names of its closing fields.

        The baseline's, or (`current`) a later report's, compared as a run's records would be.
        """
        fields: set[str] = set()
        batch: dict[type, list[tuple[object, ...]]] = {UrlFacts: [], Key: [], Document: []}
        for row in rows:
            if isinstance(row, Field):
                fields.add(row.name)
                continue
            rows_of = batch[type(row)]
            if isinstance(row, UrlFacts) and row.sitemap is not None and not current:
                self._base_listed[row.sitemap] += 1
            rows_of.append(_row(row) if isinstance(row, UrlFacts) else row)
            if len(rows_of) >= FLUSH_ROWS:
                self._insert_rows(batch, prefix="" if current else "base_")
        self._insert_rows(batch, prefix="" if current else "base_")
        return fields

    def _insert_rows(self, batch: dict[type, list[tuple[object, ...]]], *, prefix: str) -> None:
        with written(f"the comparison's scratch file {self.path}"), transaction(self._db):
            for kind, table, marks in _TABLES:
                insert = f"INSERT INTO {prefix}{table} VALUES ({marks})"  # noqa: S608 - ours
                self._db.executemany(insert, batch[kind])
        for rows in batch.values():
            rows.clear()

    # --- this run, as the sink hands it over ---

    def add_url(self, record: UrlRecord) -> None:
        """One distinct URL of this run."""
        facts = url_facts(record)
        if facts is not None:
            self._urls.append(_row(facts))

    def add_sitemap(self, record: SitemapRecord) -> None:
        """One document of this run, and its findings as keys."""
        self._documents.append((record.url,))
        self._keys += sitemap_keys(record)

    def add_run_findings(self, item: RunFindings) -> None:
        """Findings about the run's URLs taken together, as keys."""
        self._keys += run_keys(item.findings, item.omitted)

    def add_target(self, record: TargetRecord) -> None:
        """A target's findings, as keys (known once the run ends)."""
        self._keys += target_keys(record)

    async def flush_if_full(self) -> None:
        """Write what is gathered once there is enough of it."""
        if len(self._urls) + len(self._keys) >= FLUSH_ROWS:
            await self._flush()

    async def _flush(self) -> None:
        async with self._lock:
            urls, keys, documents = self._urls, self._keys, self._documents
            self._urls, self._keys, self._documents = [], [], []
            with written(f"the comparison's scratch file {self.path}"):
                await asyncio.to_thread(self._write, urls, keys, documents)

    def _write(
        self, urls: list[tuple[int, str, str]], keys: list[Key], documents: list[tuple[str]]
    ) -> None:
        with transaction(self._db):
            self._db.executemany("INSERT INTO urls VALUES (?, ?, ?)", urls)
            self._db.executemany("INSERT INTO keys VALUES (?, ?, ?, ?)", keys)
            self._db.executemany("INSERT INTO documents VALUES (?)", documents)

    # --- the end: the joins ---

    async def finish(self) -> DiffSection:
        """Join the two runs: the report's `diff`; the regressions kept for JUnit."""
        await self._flush()
        with written(f"the comparison's scratch file {self.path}"):
            return await asyncio.to_thread(self._finish)

    def _finish(self) -> DiffSection:
        tally = Tally(self.gate)
        self._index()
        with transaction(self._db):
            self._add_regressions(self._url_rows(tally))
            self._add_regressions(tally.drop_regressions(self._base_listed))  # once all are joined
            self._add_regressions(self._key_rows(tally))
        count = self._db.execute("SELECT count(*), sum(kind = 'url') FROM regressions").fetchone()
        self.regressions = count[0]
        return DiffSection(
            self.head,
            self.gate.threshold,
            regressions=count[0],
            url_regressions=count[1] or 0,
            regression_examples=tuple(self.regression_rows(limit=MAX_EXAMPLES)),
            sitemaps_added=tuple(self._documents_only("documents")),
            sitemaps_removed=tuple(self._documents_only("base_documents")),
            urls_added=tally.urls_added,
            urls_added_examples=tuple(tally.added_examples.items()),
            urls_removed=tally.urls_removed,
            urls_removed_examples=tuple(tally.removed_examples.items()),
            urls_changed=tally.urls_changed,
            urls_changed_examples=tuple(tally.changed_examples.items()),
            became_not_indexable=tally.became_not_indexable,
            became_indexable=tally.became_indexable,
            sitemaps_dropping=tuple(tally.drops[:MAX_EXAMPLES]),
            max_drop=self.gate.drop,
            new_findings=dict(sorted(tally.new.items())),
            resolved_findings=dict(sorted(tally.resolved.items())),
            cases=self,
            workspace=Path.cwd(),  # in the thread: the current folder is asked of the system
        )

    def _index(self) -> None:
        """The digest indexes the join reads (a URL twice in a table: its first entry kept)."""
        try:
            self._db.executescript(_INDEXES)
        except sqlite3.IntegrityError:
            for table in ("base_urls", "urls"):
                self._db.execute(_ONCE.format(table))
            self._db.executescript(_INDEXES)

    def changed_urls(self) -> Iterator[tuple[UrlFacts | None, UrlFacts | None, UrlChange | None]]:
        """Every URL added, removed or changed: (old, new, change), None where it has none.

        For a frame of them all (the tally keeps bounded examples). Blocking.
        """
        self._index()
        for digest, facts, place, known, old_facts, old_place in self._db.execute(_JOINED):
            new = _facts(digest, facts, place)
            if not known:
                yield None, new, None
            elif change := compare_urls(_facts(digest, old_facts, old_place), new, self.gate):
                yield _facts(digest, old_facts, old_place), new, change
        for row in self._db.execute(_REMOVED):
            yield _facts(*row), None, None

    def _url_rows(self, tally: Tally) -> Iterator[Regression | None]:
        for digest, facts, place, known, old_facts, old_place in self._db.execute(_JOINED):
            new = _facts(digest, facts, place)
            if known:
                yield tally.both(_facts(digest, old_facts, old_place), new)
            else:
                yield tally.added(new)
        for row in self._db.execute(_REMOVED):
            tally.removed(_facts(*row))

    def _key_rows(self, tally: Tally) -> Iterator[Regression | None]:
        for row in self._db.execute(_KEY_DIFF.format("keys", "base_keys")):
            yield tally.new_key(Key(*row))
        for row in self._db.execute(_KEY_DIFF.format("base_keys", "keys")):
            tally.resolved_key(Key(*row))

    def _add_regressions(self, found: Iterable[Regression | None]) -> None:
        rows = (
            (r.kind, r.subject, " ".join(r.codes), r.verdict, r.sitemap, r.line)
            for r in found
            if r is not None
        )
        self._db.executemany(_ADD_REGRESSION, rows)

    def _documents_only(self, table: str) -> list[str]:
        other = "base_documents" if table == "documents" else "documents"
        return [row[0] for row in self._db.execute(_DOCUMENT_DIFF.format(table, other))]

    def regression_rows(self, *, limit: int | None = None) -> Iterator[Regression]:
        """Every regression, URLs first, each subject once (blocking: JUnit reads it so)."""
        query = _REGRESSIONS + " ORDER BY kind = 'url' DESC, kind, subject"
        if limit is not None:
            query += f" LIMIT {int(limit)}"
        for kind, subject, codes, verdict, sitemap, line in self._db.execute(query):
            yield Regression(kind, subject, tuple(codes.split()), verdict, sitemap, line)

    # --- plumbing ---

    async def close(self) -> None:
        """Drop the file (a second close does nothing)."""
        await asyncio.to_thread(self.discard)

    def discard(self) -> None:
        """`close`, blocking."""
        self._db.close()
        self.path.unlink(missing_ok=True)


def _row(facts: UrlFacts) -> tuple[int, str, str]:
    """A URL's row: its signed digest, its compared facts, its place (JSON arrays).

    Decoded to text: a small orjson result holds a 4 KB buffer (at 20k rows waiting in a
    batch, 80 MB).
    """
    digest = facts.digest
    compared = (facts.checked, facts.status, facts.final_url, facts.verdict, facts.canonical)
    place = (facts.loc, facts.sitemap, facts.line)
    return stored_digest(digest), _json(*compared, facts.codes), _json(*place)


def _json(*values: object) -> str:
    return orjson.dumps(values).decode()


def _facts(digest: int, facts: str, place: str) -> UrlFacts:
    checked, status, final_url, verdict, canonical, codes = orjson.loads(facts)
    loc, sitemap, line = orjson.loads(place)
    return UrlFacts(
        digest_of_stored(digest),
        loc,
        checked,
        status,
        final_url,
        verdict,
        canonical,
        codes,
        sitemap,
        line,
    )

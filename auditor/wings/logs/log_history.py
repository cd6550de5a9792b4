"""`--history` for the access logs: each listed URL's last Googlebot hit, kept across runs.

Two tables of their own in the history's file: `log_hits` (a URL key's last hit and its status)
and `log_spans` (what each run's logs covered, first and last line). So "not crawled for 30
days" survives log rotation: a URL crawled by a run's logs and absent from the next run's is
still known as crawled then, and the window counts as covered when the runs' logs together
cover it. Blocking: the run calls these in a thread.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Iterator

from auditor.urls import digest_of_stored, stored_digest
from auditor.wings.feature import KeptTables
from auditor.wings.logs.log_feed import LogRun
from auditor.wings.logs.log_tally import HOSTLESS, LISTED, REMEMBERED, Span

READ_ROWS = 10_000
_LAST = (1 << 63) - 1  # the largest stored digest
KEEP_SPANS = 400  # runs' spans kept (a year of nightly runs)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS log_hits (
    digest INTEGER PRIMARY KEY, last INTEGER NOT NULL, status INTEGER NOT NULL,
    hostless INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS log_spans (
    id INTEGER PRIMARY KEY, first INTEGER NOT NULL, last INTEGER NOT NULL
);
"""
_REPLACE = "REPLACE INTO log_hits (digest, last, status, hostless) VALUES (?, ?, ?, ?)"


def _has_tables(db: sqlite3.Connection) -> bool:
    found = db.execute(
        "SELECT count(*) FROM sqlite_master "
        "WHERE type = 'table' AND name IN ('log_hits', 'log_spans')"
    ).fetchone()
    return bool(found) and found[0] == 2


def _read_hits(db: sqlite3.Connection, *, start: int) -> list[tuple[object, ...]]:
    return db.execute(
        "SELECT digest, last, status, hostless FROM log_hits WHERE digest >= ? "
        "ORDER BY digest LIMIT ?",
        (start, READ_ROWS),
    ).fetchall()


def _read_spans(db: sqlite3.Connection) -> list[tuple[object, ...]]:
    return db.execute("SELECT first, last FROM log_spans").fetchall()


def load_history(store: KeptTables, run: LogRun) -> list[Span]:
    """The last hits earlier runs kept, into `run`'s tally; the spans their logs covered."""
    if not store.run_on(_has_tables, write=False):
        return []
    start = stored_digest(0)
    while True:
        rows = store.run_on(functools.partial(_read_hits, start=start), write=False)
        for digest, last, status, hostless in rows:
            if isinstance(digest, int) and isinstance(last, int) and isinstance(status, int):
                flags = HOSTLESS if hostless else 0
                index = run.hits.row(digest_of_stored(digest), 0, flags)
                run.hits.remember(index, last_s=last, status=status)
                run.by_path = run.by_path or bool(hostless)
                run.by_host = run.by_host or not hostless
        last_digest = rows[-1][0] if rows else None
        if len(rows) < READ_ROWS or not isinstance(last_digest, int) or last_digest >= _LAST:
            break
        start = last_digest + 1
    spans = store.run_on(_read_spans, write=False)
    return [
        (first, last) for first, last in spans if isinstance(first, int) and isinstance(last, int)
    ]


def _rows(run: LogRun) -> Iterator[tuple[int, int, int, int]]:
    """The listed URLs' last hits these logs brought (the others are in the history already)."""
    hits = run.hits
    for digest, index in hits.rows():
        flags = hits.flags[index]
        if flags & LISTED and hits.last[index] and not flags & REMEMBERED:
            yield (
                stored_digest(digest),
                hits.last[index],
                hits.status[index],
                int(bool(flags & HOSTLESS)),
            )


def save_history(store: KeptTables, run: LogRun, *, span: Span | None) -> None:
    """Keep the listed URLs' new last hits, and what these logs covered."""

    def write(db: sqlite3.Connection) -> None:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.executemany(_REPLACE, _rows(run))
        if span is not None:
            cursor = db.execute("INSERT INTO log_spans (first, last) VALUES (?, ?)", span)
            db.execute(
                "DELETE FROM log_spans WHERE id <= ?", ((cursor.lastrowid or 0) - KEEP_SPANS,)
            )

    store.run_on(write, write=True)

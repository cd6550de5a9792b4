"""The URLs a run with a budget holds back until every sitemap is read: a file of the run's own.

Which URLs a budget requests is known only once every URL is listed (a URL never requested
may come last), so each waits here, on disk, with its sort key (auditor.wings.history.order); then
they come back in the budget's order, in chunks: memory does not grow with the URL count.
The file is hidden beside the report, readable by this user only, and gone when the run is:
only this process ever unpickles what it pickled there. Blocking: called in a worker thread.
"""

from __future__ import annotations

import contextlib
import pickle
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Generic, TypeVar

from auditor.files import scratch_database, written

CACHE_KIB = 2_048  # sqlite's page cache (its sorter spills to temporary files beyond it)
CHUNK = 512  # items read back at a time
T = TypeVar("T")


class Park(Generic[T]):
    """Items put with a sort key, read back sorted (ties: in the order put)."""

    def __init__(self, folder: Path) -> None:
        """A new file in `folder` that only this run opens."""
        with written(f"the budget's scratch file in {folder}"):
            folder.mkdir(parents=True, exist_ok=True)
            self.path, self._db = scratch_database(
                folder,
                prefix=".park-",
                cache_kib=CACHE_KIB,
                schema="CREATE TABLE parked (key INTEGER, item BLOB);",
            )
        self._cursor: sqlite3.Cursor | None = None
        # One call at a time (see auditor.wings.history.verdict_store).
        self._busy = threading.Lock()
        self.count = 0

    def add(self, items: Sequence[tuple[int, T]]) -> None:
        """Keep (sort key, item) pairs."""
        rows = [(key, pickle.dumps(item, pickle.HIGHEST_PROTOCOL)) for key, item in items]
        with self._busy, written(f"the budget's scratch file {self.path}"):
            self._db.execute("BEGIN")
            self._db.executemany("INSERT INTO parked VALUES (?, ?)", rows)
            self._db.execute("COMMIT")
            self.count += len(rows)

    def next_chunk(self) -> list[T]:
        """The next items in key order (empty at the end); nothing may be added meanwhile."""
        with self._busy, written(f"the budget's scratch file {self.path}"):  # its sorter spills
            if self._cursor is None:
                self._cursor = self._db.execute("SELECT item FROM parked ORDER BY key, rowid")
            rows = self._cursor.fetchmany(CHUNK)
        # This file is this process's own, made by mkstemp (mode 0600) and deleted by it.
        return [pickle.loads(blob) for (blob,) in rows]  # noqa: S301

    def discard(self) -> None:
        """Close and delete the file (a second call does nothing)."""
        with self._busy, contextlib.suppress(sqlite3.Error):
            self._db.close()
        self.path.unlink(missing_ok=True)

"""`--history PATH`: every URL's last verdict, in a sqlite file kept between runs.

One small row per URL (auditor.wings.history.history_rows), written as the run goes: each batch
of listed URLs, and each batch of checks, is one transaction, so that a run killed at any moment
leaves
every earlier night whole, and what it had itself committed (WAL: a crash rolls back only the
transaction it interrupted). The `runs` table says which run is under way, for --resume.

A file that is not a history of ours (its header says whose it is: PRAGMA application_id), or
is damaged, or was written by a newer version, is refused before the run and never written
to (HistoryError, exit 2); so is one another run holds. Blocking calls: each method runs in a
worker thread (`asyncio.to_thread`), one at a time.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn, TypeVar

from auditor.errors import HistoryError, HistoryWriteError
from auditor.files import refuse_unless_regular, transaction
from auditor.urls import digest_of_stored, stored_digest
from auditor.wings.history.history_rows import Known, listed

T = TypeVar("T")
APPLICATION_ID = 0x53414831  # "SAH1", in the file's header: this is a history of ours
FORMAT = 1  # PRAGMA user_version: the version of the tables below
# sqlite's page cache: the history's memory, whatever the number of URLs (the system's page
# cache holds the rest of the file; a look-up reads a few pages of it).
CACHE_KIB = 4_096
LOOKUP_CHUNK = 500  # digests looked up per statement (each a bound parameter)
PRUNE_CHUNK = 10_000  # rows read per step of the pruning
KEEP_RUNS = 100  # rows of the runs table kept
log = logging.getLogger(__name__)
_SQLITE_MAGIC = b"SQLite format 3\x00"
_LAST = (1 << 63) - 1  # the largest stored digest
_SCHEMA = """
CREATE TABLE urls (
    digest INTEGER PRIMARY KEY, checked INTEGER, lastmod INTEGER, flags INTEGER NOT NULL,
    status INTEGER, elapsed INTEGER, etag TEXT, modified INTEGER, result BLOB
) WITHOUT ROWID;
CREATE TABLE runs (
    id INTEGER PRIMARY KEY, started INTEGER NOT NULL, updated INTEGER NOT NULL,
    state TEXT NOT NULL, targets TEXT NOT NULL, requested INTEGER NOT NULL
);
"""
_COLUMNS = "digest, checked, lastmod, flags, status, elapsed, etag, modified, result"
_REPLACE = f"REPLACE INTO urls ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"  # noqa: S608


# A run's state: under way (or killed), stopped (Ctrl-C: resumable too), complete, abandoned.
RUNNING, STOPPED, COMPLETE, ABANDONED = "running", "stopped", "complete", "abandoned"


@dataclass(frozen=True, slots=True)
class RunStart:
    """The run as the history knows it: its row, and where a resumed run had got to."""

    run_id: int
    # The start of the run (of the interrupted one, when resumed): later than every check an
    # earlier run made, and no later than this run's checks (their times are kept at least it).
    started_s: int
    resumed: bool
    requested_before: int  # requests the interrupted run had committed
    elapsed_before_s: int  # how long the interrupted run had been going


class HistoryStore:
    """The history file, open and locked for this run."""

    def __init__(self, path: Path, db: sqlite3.Connection, lock: int) -> None:
        self.path = path
        self._db = db
        self._lock = lock
        # One statement or transaction at a time, whichever thread makes it: a caller cancelled
        # while its call still runs in a worker thread must not interleave with the next one.
        self._busy = threading.RLock()

    @classmethod
    def open(cls, path: Path) -> HistoryStore:
        """The history at `path`, made if missing; HistoryError when it cannot be used."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Without waiting: a FIFO or a device there is refused, never read or written.
            lock = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise HistoryError(f"--history {path}: cannot open it ({exc.strerror})") from None
        try:
            refuse_unless_regular(lock)
            os.set_blocking(lock, True)
        except OSError as exc:
            os.close(lock)
            raise HistoryError(f"--history {path}: {exc.strerror}; give a file path") from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(lock)
            raise HistoryError(f"--history {path}: another run is using it") from None
        try:
            return cls(path, _connect(path, lock), lock)
        except BaseException:
            os.close(lock)  # the connection, if any, is closed: nothing else holds the file
            raise

    def begin(self, targets: str, *, resume: bool, now_s: int) -> RunStart:
        """Start this run: a new row, or with `resume` the interrupted run's.

        A run left under way or stopped is continued by --resume (the same targets only);
        without it, it is abandoned (what it checked stays in the history).
        """
        rows = self._read(
            "SELECT id, started, updated, state, targets, requested FROM runs "
            "ORDER BY id DESC LIMIT 1",
            (),
        )
        with self._writing():
            if rows and rows[0][3] in (RUNNING, STOPPED):
                if resume:
                    return self._continued(rows[0], targets)
                self._db.execute("UPDATE runs SET state = ? WHERE id = ?", (ABANDONED, rows[0][0]))
            # Every check of an earlier run is older than this run's start (the same second,
            # or a clock set back, included): what --resume takes as this run's is.
            if rows and isinstance(rows[0][2], int):
                now_s = max(now_s, rows[0][2] + 1)
            cursor = self._db.execute(
                "INSERT INTO runs (started, updated, state, targets, requested) "
                "VALUES (?, ?, ?, ?, 0)",
                (now_s, now_s, RUNNING, targets),
            )
            run_id = cursor.lastrowid or 0
            self._db.execute("DELETE FROM runs WHERE id <= ?", (run_id - KEEP_RUNS,))
        return RunStart(run_id, now_s, resumed=False, requested_before=0, elapsed_before_s=0)

    def _continued(self, row: tuple[object, ...], targets: str) -> RunStart:
        """The interrupted run, under way again (the same targets only)."""
        if row[4] != targets:
            was_for = str(row[4]).replace("\n", " ")
            raise HistoryError(
                f"--resume: the run to continue in --history {self.path} audited other "
                f"targets ({was_for})"
            )
        try:
            start = _resumed(row)
        except TypeError:
            raise HistoryError(f"--history {self.path}: damaged (its runs)") from None
        self._db.execute("UPDATE runs SET state = ? WHERE id = ?", (RUNNING, start.run_id))
        return start

    def see(
        self, items: Sequence[tuple[int, int | None]], *, keep: bool = True
    ) -> dict[int, Known]:
        """The rows of URLs this run lists, (digest, lastmod) each, after their listing.

        With `keep`, rows for URLs new to the history, and lastmods that moved, are written at
        once (a run that requests every URL writes each row with its check instead).
        """
        found: dict[int, Known] = {}
        for start in range(0, len(items), LOOKUP_CHUNK):
            chunk = [stored_digest(digest) for digest, _ in items[start : start + LOOKUP_CHUNK]]
            marks = ", ".join("?" * len(chunk))
            query = f"SELECT {_COLUMNS} FROM urls WHERE digest IN ({marks})"  # noqa: S608
            for row in self._read(query, chunk):
                known = _known(row)
                if known is not None:
                    found[known.digest] = known
        seen: dict[int, Known] = {}
        changed = []
        for digest, lastmod in items:
            known, moved = listed(found.get(digest), digest, lastmod)
            seen[digest] = known
            if moved:
                changed.append(_row(known))
        if changed and keep:
            changed.sort(key=_digest_of)  # in key order: fewer pages touched, in order
            with self._writing():
                self._db.executemany(_REPLACE, changed)
        return seen

    def record(self, rows: Iterable[Known], *, run_id: int, requested: int, now_s: int) -> None:
        """The rows of URLs just checked, and how far the run got, in one transaction."""
        ordered = sorted((_row(known) for known in rows), key=_digest_of)
        with self._writing():
            self._db.executemany(_REPLACE, ordered)
            self._db.execute(
                "UPDATE runs SET updated = max(updated, ?), requested = ? WHERE id = ?",
                (now_s, requested, run_id),
            )

    def end(self, run_id: int, *, state: str, now_s: int) -> None:
        """Say how the run ended: complete, or stopped (then --resume continues it)."""
        with self._writing():
            self._db.execute(
                "UPDATE runs SET state = ?, updated = max(updated, ?) WHERE id = ?",
                (state, now_s, run_id),
            )

    def prune(self, listed_now: Callable[[int], bool], *, since_s: int) -> int:
        """Forget URLs no sitemap lists any more (after a complete run); how many went.

        A URL this run requested stays (an hreflang alternate no sitemap lists). Read a step
        at a time: memory does not grow with the history.
        """
        gone, start = 0, stored_digest(0)
        while True:
            rows = self._read(
                "SELECT digest, checked FROM urls WHERE digest >= ? ORDER BY digest LIMIT ?",
                (start, PRUNE_CHUNK),
            )
            drop = [
                (digest,)
                for digest, checked in rows
                if isinstance(digest, int)
                and not listed_now(digest_of_stored(digest))
                and not (isinstance(checked, int) and checked >= since_s)
            ]
            if drop:
                with self._writing():
                    self._db.executemany("DELETE FROM urls WHERE digest = ?", drop)
                gone += len(drop)
            last = _number(rows[-1][0]) if rows else _LAST
            if len(rows) < PRUNE_CHUNK or last >= _LAST:
                return gone
            start = last + 1

    def run_on(self, work: Callable[[sqlite3.Connection], T], *, write: bool) -> T:
        """`work` on the connection, alone (`write`: one transaction): KeptTables's, for a wing."""
        if write:
            with self._writing():
                return work(self._db)
        try:
            with self._busy:
                return work(self._db)
        except sqlite3.Error as exc:
            raise HistoryWriteError(f"--history {self.path}: cannot read it ({exc})") from None

    def rows(self) -> Iterator[Known]:
        """Every row (tests and the benchmark read the history back with it)."""
        for row in self._db.execute(f"SELECT {_COLUMNS} FROM urls"):  # noqa: S608
            known = _known(row)
            if known is not None:
                yield known

    def close(self) -> None:
        """Close the file (its WAL folded back in), then let another run have it."""
        try:
            with self._busy, contextlib.suppress(sqlite3.Error):
                self._db.close()
        finally:
            with contextlib.suppress(OSError):
                os.close(self._lock)  # last: closing it would drop sqlite's own locks too

    # --- plumbing ---

    def _read(self, query: str, args: Sequence[object]) -> list[tuple[object, ...]]:
        try:
            with self._busy:
                return self._db.execute(query, args).fetchall()
        except sqlite3.Error as exc:
            raise HistoryWriteError(f"--history {self.path}: cannot read it ({exc})") from None

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """One transaction; a failure is a HistoryWriteError (earlier ones stay committed)."""
        try:
            with self._busy, transaction(self._db, "BEGIN IMMEDIATE"):
                yield
        except sqlite3.Error as exc:
            raise HistoryWriteError(f"--history {self.path}: cannot write it ({exc})") from None


def _connect(path: Path, lock: int) -> sqlite3.Connection:
    """A connection to a history of ours; HistoryError (nothing written) for anything else.

    A new file that cannot be made (a full disk) is removed: HistoryWriteError.
    """
    header = os.pread(lock, 100, 0)
    new = not header
    if not new:
        _check_header(path, header)
    try:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise HistoryError(f"--history {path}: cannot open it ({exc})") from None
    try:
        if new:
            db.executescript(
                f"PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {FORMAT};"
                "PRAGMA journal_mode = WAL;" + _SCHEMA
            )
        else:
            _check_tables(path, db)
        db.executescript(f"PRAGMA synchronous = NORMAL; PRAGMA cache_size = -{CACHE_KIB};")
    except HistoryError:
        db.close()
        raise
    except sqlite3.Error as exc:
        db.close()
        if new:  # nothing was there: the disk failed (full), not a file of the user's
            for made in (
                path,
                path.with_name(f"{path.name}-wal"),
                path.with_name(f"{path.name}-shm"),
            ):
                made.unlink(missing_ok=True)
            raise HistoryWriteError(f"--history {path}: cannot write it ({exc})") from None
        raise HistoryError(f"--history {path}: damaged ({exc}); give another path") from None
    return db


def _check_header(path: Path, header: bytes) -> None:
    """The file's first 100 bytes: an sqlite file of ours, of a format this version reads.

    sqlite's file format (sqlite.org/fileformat.html §1.3): the magic string first, the user
    version at offset 60, the application id at offset 68, both 4-byte big-endian.
    """
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        raise HistoryError(f"--history {path}: not a history file (not sqlite); give another path")
    owner = int.from_bytes(header[68:72], "big")
    if owner != APPLICATION_ID:
        raise HistoryError(
            f"--history {path}: an sqlite file of another program; give another path"
        )
    version = int.from_bytes(header[60:64], "big")
    if version > FORMAT:
        raise HistoryError(f"--history {path}: written by a newer version (format {version})")


def _check_tables(path: Path, db: sqlite3.Connection) -> None:
    """The file's pages as sqlite checks them, then the tables this version reads."""
    report = [str(row[0]) for row in db.execute("PRAGMA quick_check")]  # at most 100 rows
    if report != ["ok"]:  # its report runs to many lines: for the operator, under -v
        log.info("--history %s: sqlite's quick_check:\n%s", path, "\n".join(report))
        raise HistoryError(
            f"--history {path}: damaged (sqlite's integrity check fails; -v shows its report); "
            "give another path"
        )
    db.execute(f"SELECT {_COLUMNS} FROM urls LIMIT 0")  # noqa: S608
    db.execute("SELECT id, started, updated, state, targets, requested FROM runs LIMIT 0")


def _known(row: tuple[object, ...]) -> Known | None:
    """A row as read; None when a value is not of its column's type (not written by us)."""
    digest, checked, lastmod, flags, status, elapsed, etag, modified, result = row
    try:
        return Known(
            digest_of_stored(_number(digest)),
            _maybe(checked),
            _maybe(lastmod),
            _number(flags),
            _maybe(status),
            _maybe(elapsed),
            etag if etag is None or isinstance(etag, str) else _refuse(etag),
            _maybe(modified),
            result if result is None or isinstance(result, bytes) else _refuse(result),
        )
    except TypeError:
        return None


def _number(value: object) -> int:
    return value if isinstance(value, int) else _refuse(value)


def _maybe(value: object) -> int | None:
    return None if value is None else _number(value)


def _refuse(value: object) -> NoReturn:
    raise TypeError(type(value).__name__)


def _resumed(row: tuple[object, ...]) -> RunStart:
    """The start of the run a --resume continues, from its row."""
    run_id, started, updated, _, _, requested = row
    began = _number(started)
    return RunStart(
        _number(run_id),
        began,
        resumed=True,
        requested_before=_number(requested),
        elapsed_before_s=max(0, _number(updated) - began),
    )


def _digest_of(row: tuple[object, ...]) -> int:
    return _number(row[0])


def _row(known: Known) -> tuple[object, ...]:
    return (stored_digest(known.digest), *known[1:])

"""The file edge: documents read in chunks, inputs read bounded, files replaced or made new.

A reader of a file written with `write_atomically` sees the old content or the new one, never
half of it. An input file is a regular file, never a FIFO, a device or a folder (each would
block or never end). The run's temporary sqlite files (scratch databases: hreflang links, the
crawl) live beside the report.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import secrets
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, ParamSpec, Self, TypeVar

import aiofiles
from aiofiles.threadpool.binary import AsyncBufferedReader

from auditor.errors import ReportWriteError

LOCAL_CHUNK_BYTES = 256 * 1024
# A new file is never a file or a link that was there before: O_EXCL (with O_CREAT, a link is
# not followed either, even to nowhere), O_NOFOLLOW said as well. Its mode is the umask's.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE_TRIES = 16
P = ParamSpec("P")
R = TypeVar("R")
# An input file opened without waiting: a FIFO's open would block until a writer came.
_INPUT = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
}


class LocalFile:
    """An open local file with the `read()` of a response: the next chunk, b"" at the end."""

    def __init__(self, handle: AsyncBufferedReader) -> None:
        self._handle = handle

    @classmethod
    async def open(cls, path: Path) -> Self:
        """Open `path` for reading; OSError when it cannot be."""
        return cls(await aiofiles.open(path, "rb"))

    async def read(self) -> bytes:
        """The next chunk."""
        return await self._handle.read(LOCAL_CHUNK_BYTES)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self._handle.close()


# What the disk says when a file of the run cannot be written: a full disk or a file size limit
# (EFBIG, ENOSPC), an I/O error; sqlite's own words for them ("database or disk is full",
# "disk I/O error") are OperationalErrors. Its misuse (ProgrammingError) is a bug, not the disk.
DISK_ERRORS = (OSError, sqlite3.OperationalError)


@contextmanager
def written(what: str) -> Iterator[None]:
    """A block that writes (or reads back) `what`, a file of the run's own.

    The disk's failure in it is a ReportWriteError: the run fails with one line and exit 3,
    whichever writer meets a full disk first (docs/reference/exit-codes.md).
    """
    try:
        yield
    except DISK_ERRORS as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ReportWriteError(f"cannot write {what}: {reason}") from exc


def not_a_file(path: Path) -> str | None:
    """What `path` is when it is there and no regular file ("a FIFO"); None otherwise. Blocking."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):  # missing, unreadable, or a NUL in it: the opener says
        return None
    return None if stat.S_ISREG(mode) else _KINDS.get(stat.S_IFMT(mode), "no regular file")


def open_input(path: Path, *, buffering: int = -1) -> BinaryIO:
    """`path` open for reading, a regular file only; OSError saying why not. Blocking.

    A FIFO, a device or a folder given as a file is refused before it is read: a FIFO would
    wait for a writer, `/dev/zero` would never end, a folder cannot be read.
    """
    handle = os.open(path, _INPUT)
    try:
        refuse_unless_regular(handle)
        os.set_blocking(handle, True)
        return os.fdopen(handle, "rb", buffering=buffering)
    except BaseException:
        os.close(handle)
        raise


def refuse_unless_regular(handle: int) -> None:
    """OSError saying what the open file `handle` is, unless it is a regular file."""
    mode = os.fstat(handle).st_mode
    if not stat.S_ISREG(mode):
        kind = _KINDS.get(stat.S_IFMT(mode), "no regular file")
        raise OSError(errno.EINVAL, f"{kind}, not a regular file")


def read_input(path: Path, *, max_bytes: int) -> bytes:
    """The bytes of the regular file `path`, at most `max_bytes`; OSError past them. Blocking."""
    with open_input(path) as source:
        data = source.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise OSError(errno.EFBIG, f"larger than {max_bytes:,} bytes")
    return data


def create_new(stem: Path, suffix: str = "") -> tuple[int, Path]:
    """A new file named `stem`, a random part and `suffix`, made for writing: its descriptor.

    Temporary files go beside the outputs, in folders others may write to: a name known in
    advance would let anyone plant a link there and have the auditor write through it. A
    random name (64 bits), created exclusively, is a file no one else made. Blocking.
    """
    for _ in range(_NEW_FILE_TRIES):
        path = stem.with_name(f"{stem.name}.{secrets.token_hex(8)}{suffix}")
        try:
            return os.open(path, _NEW_FILE, 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(
        errno.EEXIST, f"no new file name beside {stem} after {_NEW_FILE_TRIES} tries"
    )


def hidden_stem(path: Path) -> Path:
    """`.name` beside `path`: the stem of the temporary files made on the way to `path`."""
    return path.with_name(f".{path.name}")


def scratch_database(
    folder: Path, *, prefix: str, cache_kib: int, schema: str = ""
) -> tuple[Path, sqlite3.Connection]:
    """A new sqlite file of the run's own in `folder`, made with `schema`.

    Hidden, this user's only (mkstemp); none is left when it cannot be made. Set for speed,
    not safety: no journal, no sync (the run deletes it); its page cache is `cache_kib`, and
    what sorts beyond it spills to temporary files, never to memory. Blocking: call it in a
    thread from the event loop.
    """
    handle, name = tempfile.mkstemp(prefix=prefix, suffix=".sqlite", dir=folder)
    os.close(handle)
    path = Path(name)
    try:
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        try:
            db.executescript(
                f"PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-{cache_kib};"
                f"PRAGMA temp_store=FILE;{schema}"
            )
        except BaseException:
            db.close()
            raise
    except BaseException:  # a full disk: nothing left behind
        path.unlink(missing_ok=True)
        raise
    return path, db


@contextmanager
def transaction(db: sqlite3.Connection, begin: str = "BEGIN") -> Iterator[None]:
    """One transaction on an autocommit connection: committed, or rolled back on any raise."""
    db.execute(begin)
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, flush it to disk, rename it over `path`.

    Blocking: call it in a thread from the event loop.
    """
    with replaced_atomically(path) as out:
        out.write(data)


@contextmanager
def replaced_atomically(path: Path) -> Iterator[BinaryIO]:
    """A file to write `path`'s new content into, renamed over `path` when the block ends.

    The temporary file beside it is made new (`create_new`); the rename is atomic on POSIX file
    systems, and the fsync before it makes sure a crash cannot leave the new name on empty
    content. An error in the block leaves `path` as it was. Blocking.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = create_new(hidden_stem(path), ".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def copy_to_new(source: Path, target: Path) -> None:
    """`source`'s content at `target`, a name nothing holds: FileExistsError when one does.

    Whatever is at `target` (a file, a folder, a FIFO, a link, to anywhere or to nowhere) is
    never opened, followed nor replaced: a hard link is made, which fails on any name taken;
    where links cannot be made (another file system), a whole copy is made new beside
    `target` and linked there. Blocking.
    """
    try:
        os.link(source, target)
    except FileExistsError:
        raise
    except OSError:  # another file system, or links refused: a copy, then linked
        _copy_to_new(source, target)


def _copy_to_new(source: Path, target: Path) -> None:
    handle, temporary = create_new(hidden_stem(target), ".tmp")
    try:
        with os.fdopen(handle, "wb") as out, source.open("rb") as data:
            shutil.copyfileobj(data, out)
            out.flush()
            os.fsync(out.fileno())
        _link_or_claim(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def _link_or_claim(temporary: Path, target: Path) -> None:
    """`temporary` at the new name `target`: linked, else the name made new and renamed onto."""
    try:
        os.link(temporary, target)
    except FileExistsError:
        raise
    except OSError:  # a file system without links: the name claimed first, exclusively
        os.close(os.open(target, _NEW_FILE, 0o666))
        temporary.replace(target)


class RunDatabase:
    """A temporary sqlite file beside the report, for one run (hreflang links, the crawl).

    An async context manager: the file is dropped when the run leaves it, however it ends.
    Queries run in a thread; `connect` (in that thread) makes the file at the first write,
    new and under a random name beside `stem` (`create_new`: no one else's link is written
    through).
    """

    def __init__(self, stem: Path) -> None:
        self._stem = stem
        self.path: Path | None = None  # made new at the first write
        self._db: sqlite3.Connection | None = None

    async def in_thread(self, call: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """`call` in a worker thread; the disk's failure is a ReportWriteError (`written`)."""
        with written(f"the run's scratch file {self.path or self._stem}"):
            return await asyncio.to_thread(call, *args, **kwargs)

    def connect(self, schema: str) -> sqlite3.Connection:
        """The connection, the file made with `schema` at the first call (a blocking call)."""
        if self._db is None:  # an empty new file is an empty database to sqlite
            handle, self.path = create_new(self._stem, ".sqlite")
            os.close(handle)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db = db  # closed and deleted with the run, even when the schema fails
            db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + schema)
        return self._db

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Drop the file: it only lives as long as the run."""
        if self._db is not None:
            db, self._db = self._db, None
            await asyncio.to_thread(db.close)
        path, self.path = self.path, None
        if path is not None:
            with contextlib.suppress(OSError):
                await asyncio.to_thread(path.unlink, missing_ok=True)

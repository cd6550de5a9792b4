"""The file edge: local documents read in chunks, files replaced whole, temporary databases.

A reader of a file written with `write_atomically` sees the old content or the new one, never
half of it. The run's temporary sqlite files (hreflang links, the crawl) live beside the report.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Self

import aiofiles
from aiofiles.threadpool.binary import AsyncBufferedReader

LOCAL_CHUNK_BYTES = 256 * 1024


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


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, flush it to disk, rename it over `path`.

    Blocking: call it in a thread from the event loop.
    """
    with replaced_atomically(path) as out:
        out.write(data)


@contextmanager
def replaced_atomically(path: Path) -> Iterator[BinaryIO]:
    """A file to write `path`'s new content into, renamed over `path` when the block ends.

    The temporary file beside it is made new (O_EXCL: never one planted there, nor a link
    followed) with the usual permissions; the fsync before the rename makes sure a crash
    cannot leave the new name on empty content. An error in the block leaves `path` as it was.
    Blocking: call it in a thread from the event loop.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            handle = os.open(temporary, _NEW_FILE, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(handle, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


class RunDatabase:
    """A temporary sqlite file beside the report, for one run (hreflang links, the crawl).

    An async context manager: the file is dropped when the run leaves it, however it ends.
    Queries run in a thread; `connect` (in that thread) makes the file at the first write.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None

    def connect(self, schema: str) -> sqlite3.Connection:
        """The connection, the file made with `schema` at the first call (a blocking call)."""
        if self._db is None:
            self.path.unlink(missing_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + schema)
            self._db = db
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
        with contextlib.suppress(OSError):
            await asyncio.to_thread(self.path.unlink, missing_ok=True)

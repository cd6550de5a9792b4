"""The file edge: local documents read in chunks (aiofiles), and files replaced whole.

A reader of a file written with `write_atomically` sees the old content or the new one, never
half of it.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType
from typing import Self

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

    Blocking: call it in a thread from the event loop. The rename is atomic on POSIX file
    systems; the fsync first makes sure a crash cannot leave the new name on empty content.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise

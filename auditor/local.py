"""Local files as documents, read in chunks from the event loop with aiofiles."""

from __future__ import annotations

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

"""The JSON report, written as a stream and published atomically (DESIGN §5).

`urls[]` and `sitemaps[]` grow at the same time, so each is spooled to its own file beside the
report as records arrive; `commit()` then writes the head, both spools and the summary into a
temporary file, syncs it, and renames it over the report path. A reader never sees half a report.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

import aiofiles
import aiofiles.os
import orjson
from aiofiles.threadpool.binary import AsyncBufferedIOBase

from auditor.report.encode import Json

FLUSH_BYTES = 1 << 20  # buffer records and write in large pieces: each write is a thread hop
COPY_BYTES = 1 << 20


class _Spool:
    """One array's records, comma-separated, in a hidden file beside the report."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._buffer = bytearray()
        self._count = 0
        self._file: AsyncBufferedIOBase | None = None

    async def open(self) -> None:
        self._file = await aiofiles.open(self.path, "wb")

    def add(self, record: Json) -> None:
        if self._count:
            self._buffer += b",\n"
        self._buffer += orjson.dumps(record)
        self._count += 1

    @property
    def full(self) -> bool:
        return len(self._buffer) >= FLUSH_BYTES

    async def flush(self) -> None:
        assert self._file is not None
        if self._buffer:
            data = bytes(self._buffer)
            self._buffer.clear()
            await self._file.write(data)

    async def close(self) -> None:
        if self._file is not None:
            await self.flush()
            await self._file.close()
            self._file = None

    async def copy_to(self, out: AsyncBufferedIOBase) -> None:
        async with aiofiles.open(self.path, "rb") as source:
            while chunk := await source.read(COPY_BYTES):
                await out.write(chunk)


class JsonReportWriter:
    """Streams `sitemaps[]` and `urls[]` records; `commit()` publishes the report atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._sitemaps = _Spool(path.with_name(f".{path.name}.sitemaps.part"))
        self._urls = _Spool(path.with_name(f".{path.name}.urls.part"))
        self._temporary = path.with_name(f".{path.name}.tmp")

    async def open(self) -> None:
        """Create the folder and the spools; OSError when the folder is not writable."""
        await aiofiles.os.makedirs(self.path.parent, exist_ok=True)
        await self._sitemaps.open()
        await self._urls.open()

    def add_url(self, record: Json) -> None:
        """Append one `urls[]` entry (buffered)."""
        self._urls.add(record)

    def add_sitemap(self, record: Json) -> None:
        """Append one `sitemaps[]` entry (buffered)."""
        self._sitemaps.add(record)

    async def flush_if_full(self) -> None:
        """Write buffers that reached FLUSH_BYTES."""
        for spool in (self._urls, self._sitemaps):
            if spool.full:
                await spool.flush()

    async def commit(self, head: Json, *, targets: Sequence[Json], summary: Json) -> None:
        """Assemble head, targets, sitemaps, urls and summary; sync; rename into place."""
        await self._sitemaps.close()
        await self._urls.close()
        opening = orjson.dumps(head)[:-1] + b',"targets":' + orjson.dumps(list(targets))
        async with aiofiles.open(self._temporary, "wb") as out:
            await out.write(opening + b',\n"sitemaps":[\n')
            await self._sitemaps.copy_to(out)
            await out.write(b'\n],\n"urls":[\n')
            await self._urls.copy_to(out)
            await out.write(b'\n],\n"summary":' + orjson.dumps(summary) + b"}\n")
            await out.flush()
            await asyncio.to_thread(os.fsync, out.fileno())
        await aiofiles.os.replace(self._temporary, self.path)
        await self._remove_spools()

    async def discard(self) -> None:
        """Leave nothing behind: no report, no spool, no temporary file."""
        await self._sitemaps.close()
        await self._urls.close()
        await _remove(self._temporary)
        await self._remove_spools()

    async def _remove_spools(self) -> None:
        await _remove(self._sitemaps.path)
        await _remove(self._urls.path)


async def _remove(path: Path) -> None:
    # Best effort: nothing to remove, or a folder that never existed, is not a second error.
    with contextlib.suppress(OSError):
        await aiofiles.os.remove(path)

"""The JSON report, written as a stream and published atomically.

`urls[]` and `sitemaps[]` grow at the same time, so each is spooled to its own file beside the
report as records arrive; `commit()` then writes the head, both spools and the summary into a
temporary file, syncs it, and renames it over the report path. A reader never sees half a report.

See docs/explanation/design.md#report.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import aiofiles
import aiofiles.os
import orjson
from aiofiles.threadpool.binary import AsyncBufferedIOBase

from auditor.errors import ReportError, ReportWriteError
from auditor.files import create_new, hidden_stem
from auditor.models import RunFindings, SitemapRecord, UrlRecord
from auditor.net.remap import NO_REMAP, Remap
from auditor.report.encode import Json, dumps, finding_json, sitemap_json, url_json
from auditor.sitemap.plain_urls import Checked, Listed

FLUSH_BYTES = 1 << 20  # buffer records and write in large pieces: each write is a thread hop
COPY_BYTES = 1 << 20


class _Spool:
    """One array's records, comma-separated, in a hidden file beside the report."""

    def __init__(self, report: Path, suffix: str) -> None:
        self._report = report
        self._suffix = suffix
        self.path: Path | None = None  # a new file, made when the spool opens
        self._buffer = bytearray()
        self._count = 0
        self._file: AsyncBufferedIOBase | None = None

    async def open(self) -> None:
        self.path, self._file = await _new_file(self._report, self._suffix)

    def add(self, record: Json) -> None:
        if self._count:
            self._buffer += b",\n"
        try:  # `dumps`, inline: once a URL
            self._buffer += orjson.dumps(record)
        except TypeError:
            self._buffer += dumps(record)
        self._count += 1

    @property
    def full(self) -> bool:
        return len(self._buffer) >= FLUSH_BYTES

    async def flush(self) -> None:
        assert self._file is not None
        if self._buffer:
            data = bytes(self._buffer)
            self._buffer.clear()
            try:
                await self._file.write(data)
            except OSError as exc:
                raise ReportWriteError(f"cannot write {self.path}: {exc}") from exc

    async def close(self) -> None:
        if self._file is None:
            return
        try:
            await self.flush()
        finally:
            file, self._file = self._file, None
            await file.close()

    async def copy_to(self, out: AsyncBufferedIOBase) -> None:
        assert self.path is not None
        async with aiofiles.open(self.path, "rb") as source:
            while chunk := await source.read(COPY_BYTES):
                await out.write(chunk)


class JsonReportWriter:
    """Streams `sitemaps[]` and `urls[]` records; `commit()` publishes the report atomically."""

    def __init__(self, path: Path, *, remap: Remap = NO_REMAP) -> None:
        """The report at `path`; `remap`: where --remap sent the requests, said beside each URL."""
        self.path = path
        self._remap = remap
        self._sitemaps = _Spool(path, ".sitemaps.part")
        self._urls = _Spool(path, ".urls.part")
        self._temporary: Path | None = None  # the report assembled, before its rename
        # Run findings arrive once per kind (hreflang, where alternates lead, lastmod behind the
        # page), at most alternates.MAX_RUN_FINDINGS of each: held here.
        self._run_findings: list[Json] = []
        self._run_omitted: dict[str, int] = {}

    async def open(self) -> None:
        """Create the folder and the spools; ReportError when the folder is not writable."""
        try:
            await aiofiles.os.makedirs(self.path.parent, exist_ok=True)
            await self._sitemaps.open()
            await self._urls.open()
        except OSError as exc:
            await self.discard()
            raise ReportError(f"cannot write the report to {self.path.parent}: {exc}") from exc

    def add_url(self, record: UrlRecord | Listed | Checked) -> None:
        """Append one `urls[]` entry (buffered)."""
        entry = url_json(record)
        if self._remap:  # a checked URL's request: a record's with a check, a Checked tuple's
            if isinstance(record, Checked):
                self._beside(entry, record.listed.loc)
            elif isinstance(record, UrlRecord) and record.check is not None:
                self._beside(entry, record.loc)
        self._urls.add(entry)

    def add_sitemap(self, record: SitemapRecord) -> None:
        """Append one `sitemaps[]` entry (buffered)."""
        entry = sitemap_json(record)
        if self._remap:
            self._beside(entry, record.url)
        self._sitemaps.add(entry)

    def _beside(self, entry: Json, url: str) -> None:
        """`remapped`: where the request for the URL the site names went (--remap, --serve)."""
        shown = self._remap.shown(url)
        if shown is not None:
            entry["remapped"] = shown

    def add_run_findings(self, item: RunFindings) -> None:
        """Findings about the run's URLs taken together: `run_findings[]`, the count left out."""
        self._run_findings += (finding_json(found) for found in item.findings)
        for code, count in item.omitted.items():
            self._run_omitted[code.value] = self._run_omitted.get(code.value, 0) + count

    async def flush_if_full(self) -> None:
        """Write buffers that reached FLUSH_BYTES."""
        for spool in (self._urls, self._sitemaps):
            if spool.full:
                await spool.flush()

    async def commit(
        self,
        head: Json,
        *,
        targets: Sequence[Json],
        summary: Json,
        closing: Mapping[str, object] | None = None,
    ) -> None:
        """Assemble head, targets, sitemaps, urls and summary; sync; rename into place.

        `closing`: fields of the wings' sections, written before the summary (`diff`).
        """
        try:
            await self._commit(head, targets=targets, summary=summary, closing=closing or {})
        except OSError as exc:
            raise ReportWriteError(f"cannot write the report {self.path}: {exc}") from exc
        finally:
            await self.discard()  # the spools, and the temporary file if the rename failed

    async def _commit(
        self, head: Json, *, targets: Sequence[Json], summary: Json, closing: Mapping[str, object]
    ) -> None:
        await self._sitemaps.close()
        await self._urls.close()
        opening = dumps(head)[:-1] + b',"targets":' + dumps(list(targets))
        self._temporary, out = await _new_file(self.path, ".tmp")
        try:
            await out.write(opening + b',\n"sitemaps":[\n')
            await self._sitemaps.copy_to(out)
            await out.write(b'\n],\n"urls":[\n')
            await self._urls.copy_to(out)
            await out.write(b"\n]")
            if self._run_findings or self._run_omitted:
                await out.write(b',\n"run_findings":' + dumps(self._run_findings))
                await out.write(b',\n"run_findings_omitted":' + dumps(self._run_omitted))
            for key, value in closing.items():
                await out.write(b",\n" + dumps(key) + b":" + dumps(value))
            await out.write(b',\n"summary":' + dumps(summary) + b"}\n")
            await out.flush()
            await asyncio.to_thread(os.fsync, out.fileno())
        finally:
            await out.close()
        await aiofiles.os.replace(self._temporary, self.path)
        self._temporary = None

    async def discard(self) -> None:
        """Leave nothing behind but a committed report: no spool, no temporary file."""
        for spool in (self._sitemaps, self._urls):
            with contextlib.suppress(OSError, ReportWriteError):
                await spool.close()
            await _remove(spool.path)
        await _remove(self._temporary)


async def _new_file(report: Path, suffix: str) -> tuple[Path, AsyncBufferedIOBase]:
    """A new hidden file beside `report`, open for writing (never one planted there)."""
    handle, path = await asyncio.to_thread(create_new, hidden_stem(report), suffix)
    return path, await aiofiles.open(handle, "wb")


async def _remove(path: Path | None) -> None:
    # Best effort: nothing to remove, or a folder that never existed, is not a second error.
    if path is None:
        return
    with contextlib.suppress(OSError):
        await aiofiles.os.remove(path)

"""`--state PATH` on disk: the file of validators, and `PATH.d/` beside it with the kept bodies.

Loaded before the run, saved after it (temp file, fsync, rename); a body is written to a
temporary file as it arrives and renamed in only once read whole. Failures here are warnings,
never findings: the state only spares downloads, and a run without it is still right.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Self

import aiofiles
import aiofiles.os
from aiofiles.threadpool.binary import AsyncBufferedIOBase, AsyncBufferedReader

from auditor.clock import Clock
from auditor.errors import StateFormatError, StateReadError
from auditor.files import LOCAL_CHUNK_BYTES, open_input, write_atomically
from auditor.sitemap.state_file import (
    StateEntry,
    body_name,
    entry_problem,
    is_body_name,
    parse_state,
    state_bytes,
)

log = logging.getLogger(__name__)
FLUSH_BYTES = 1 << 20  # a body is written in large pieces: each write is a thread hop
# A state file is a few hundred bytes per sitemap (the run's sitemap cap bounds them): a larger
# file was not written by us, and is not read whole into memory.
MAX_STATE_BYTES = 1 << 28
_PART = re.compile(r"\.[0-9a-f]{16}\.part")


def body_folder(path: Path) -> Path:
    """The folder of the bodies kept for the state file `path`."""
    return path.with_name(path.name + ".d")


class Stored:
    """A sitemap's entry, its body open and its size checked: what a 304 is answered from."""

    def __init__(self, entry: StateEntry, body: AsyncBufferedReader) -> None:
        self.entry = entry
        self._body = body

    async def read(self) -> bytes:
        """The next chunk of the kept body; b"" at its end."""
        try:
            return await self._body.read(LOCAL_CHUNK_BYTES)
        except OSError as exc:
            raise StateReadError(f"cannot read the kept copy {self.entry.file}: {exc}") from exc

    async def close(self) -> None:
        """Close the kept body."""
        await self._body.close()


class BodyCopy:
    """One response body, written to a temporary file in the state's folder as it is read."""

    def __init__(self, folder: Path, *, on_error: WarnOnce) -> None:
        self._folder = folder
        self._path = folder / f".{secrets.token_hex(8)}.part"
        self._on_error = on_error
        self._file: AsyncBufferedIOBase | None = None
        self._buffer = bytearray()
        self.size = 0
        self.failed = False

    async def write(self, chunk: bytes) -> None:
        """Add a chunk of the body."""
        if self.failed:
            return
        self._buffer += chunk
        self.size += len(chunk)
        if len(self._buffer) >= FLUSH_BYTES:
            await self._flush()

    async def _flush(self) -> None:
        try:
            if self._file is None:
                await aiofiles.os.makedirs(self._folder, exist_ok=True)
                self._file = await aiofiles.open(self._path, "xb")  # never a planted link
            await self._file.write(bytes(self._buffer))
        except OSError as exc:
            self._fail(exc)
        self._buffer.clear()

    def _fail(self, exc: OSError) -> None:
        self.failed = True
        self._on_error(f"cannot write a sitemap's copy in {self._folder}: {exc}")

    async def finish(self, name: str) -> bool:
        """Sync the copy and rename it to `name`; False when it could not be kept."""
        if not self.failed:
            await self._flush()
        if not self.failed and self._file is not None:
            try:
                await self._file.flush()
                await asyncio.to_thread(os.fsync, self._file.fileno())
                await self._close()
                await aiofiles.os.replace(self._path, self._folder / name)
            except OSError as exc:
                self._fail(exc)
            else:
                return True
        await self.discard()
        return False

    async def discard(self) -> None:
        """Leave nothing behind."""
        with contextlib.suppress(OSError):
            await self._close()
        with contextlib.suppress(OSError):
            await aiofiles.os.remove(self._path)

    async def _close(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            await file.close()


class WarnOnce:
    """One warning line per run for the state's write failures (a full disk fails every write)."""

    def __init__(self) -> None:
        self._warned = False

    def __call__(self, message: str) -> None:
        if not self._warned:
            self._warned = True
            log.warning("--state: %s; the next run fetches these sitemaps in full", message)


class StateStore:
    """The run's state: the entries loaded, the changes the run made, the sitemaps it asked for."""

    def __init__(self, path: Path, entries: Mapping[str, StateEntry], *, clock: Clock) -> None:
        self.path = path
        self.folder = body_folder(path)
        self._loaded = dict(entries)
        self._changes: dict[str, StateEntry | None] = {}  # None: the entry is dropped
        self._asked: set[str] = set()
        self._clock = clock
        self._warn = WarnOnce()

    @classmethod
    async def load(cls, path: Path, *, clock: Clock) -> Self:
        """The state at `path`: none yet, or an unusable file (one warning), is an empty one."""
        try:
            entries = await asyncio.to_thread(_read, path)
        except (FileNotFoundError, NotADirectoryError):  # no state yet; saving it may warn
            entries = {}
        except (OSError, StateFormatError) as exc:
            log.warning("--state %s ignored (%s): every sitemap is fetched in full", path, exc)
            entries = {}
        return cls(path, entries, clock=clock)

    async def lookup(self, url: str) -> Stored | None:
        """The entry of a sitemap about to be requested, if its kept body is there, whole."""
        self._asked.add(url)
        entry = self._loaded.get(url)
        if entry is None:
            return None
        try:
            body = await aiofiles.open(self.folder / entry.file, "rb")
        except OSError:
            log.info("--state: the copy of %s is missing: fetched in full", url)
            return None
        try:
            size = (await asyncio.to_thread(os.fstat, body.fileno())).st_size
        except OSError:
            size = -1
        if size != entry.bytes:
            log.info("--state: the copy of %s is damaged: fetched in full", url)
            await body.close()
            return None
        return Stored(entry, body)

    def copy(self) -> BodyCopy:
        """A new temporary copy of a body about to be read."""
        return BodyCopy(self.folder, on_error=self._warn)

    async def keep(self, url: str, copy: BodyCopy, headers: Mapping[str, str]) -> None:
        """Keep a body read whole with the validators of its answer; without any, drop it."""
        entry = StateEntry(
            etag=headers.get("ETag"),
            last_modified=headers.get("Last-Modified"),
            file=body_name(url, secrets.token_hex(8)),
            bytes=copy.size,
            content_type=headers.get("Content-Type"),
            content_encoding=headers.get("Content-Encoding"),
            saved_at=self._clock.now().isoformat().replace("+00:00", "Z"),
        )
        if entry_problem(entry) is None and await copy.finish(entry.file):
            self._changes[url] = entry
            return
        await copy.discard()
        self.forget(url)

    def forget(self, url: str) -> None:
        """The sitemap answered with a body that is not kept: its old copy is stale."""
        self._changes[url] = None

    def entries(self, *, complete: bool) -> dict[str, StateEntry]:
        """The state to save: after a complete run, only the sitemaps it asked for."""
        entries = {
            url: entry for url, entry in self._loaded.items() if not complete or url in self._asked
        }
        for url, change in self._changes.items():
            if change is None:
                entries.pop(url, None)
            else:
                entries[url] = change
        return entries

    async def save(self, *, complete: bool) -> None:
        """Write the state file atomically, then delete the bodies it no longer names."""
        entries = self.entries(complete=complete)
        try:
            await asyncio.to_thread(write_atomically, self.path, state_bytes(entries))
        except OSError as exc:
            self._warn(f"cannot write {self.path}: {exc}")
            return
        kept = {entry.file for entry in entries.values()}
        await asyncio.to_thread(_prune, self.folder, kept)


def _read(path: Path) -> dict[str, StateEntry]:
    with open_input(path) as source:  # never a FIFO's open, waiting for a writer
        data = source.read(MAX_STATE_BYTES + 1)
    if len(data) > MAX_STATE_BYTES:
        raise StateFormatError(f"larger than {MAX_STATE_BYTES} bytes")
    return parse_state(data)


def _prune(folder: Path, kept: set[str]) -> None:
    """Delete bodies not named, and temporary copies a crash left; never anything else."""
    try:
        files = list(folder.iterdir())
    except OSError:
        return
    for file in files:
        if (is_body_name(file.name) and file.name not in kept) or _PART.fullmatch(file.name):
            with contextlib.suppress(OSError):
                file.unlink()

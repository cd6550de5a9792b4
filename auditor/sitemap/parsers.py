"""Where a document's body is parsed and validated: this process's own parser, and the seam.

`Parsers` is what the reader asks for a parser; `InProcessParsers` parses every document here.
With `--workers` and `--no-check`, auditor.processes.parse_pool gives out parse helper
processes too, through the same seam.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

from auditor.sitemap.validated_entries import DocumentSpec, DocumentValidator, Validated

Read = Callable[[], Awaitable[bytes]]
Handle = Callable[[list[Validated]], Awaitable[None]]


@dataclass(slots=True)
class BodyRead:
    """How much of a document's body was read, kept up to date (a read may fail midway)."""

    bytes: int = 0  # decompressed, given to the parser
    compressed: bool = False  # the document itself is a gzip file
    ended: bool = False  # read to its end, not stopped early
    fingerprint: str | None = None  # a digest of the document, when its spec asked for one


Parse = Callable[[DocumentSpec, Read, Handle, BodyRead], Awaitable[None]]


class Parsers(Protocol):
    """Gives out a parser for one document at a time (waiting while none is free)."""

    def parser(self) -> AbstractAsyncContextManager[Parse]:
        """A parser to read one document with."""
        ...


async def parse_here(spec: DocumentSpec, read: Read, handle: Handle, body: BodyRead) -> None:
    """Read, parse and validate a document in this process, giving `handle` each piece."""
    validator = DocumentValidator(spec)
    try:
        while not validator.stopped:
            chunk = await read()
            body.ended = not chunk
            for piece in validator.feed(chunk) if chunk else validator.close():
                await handle(piece)
                # A chunk can hold thousands of entries, and validating them awaits nothing:
                # let the rest of the run go on between pieces (64 KiB each).
                await asyncio.sleep(0)
    finally:
        body.bytes, body.compressed = validator.parsed_bytes, validator.compressed
        body.fingerprint = validator.fingerprint


class InProcessParsers:
    """Every document parsed in this process (`--sitemap-concurrency` at once)."""

    @contextlib.asynccontextmanager
    async def parser(self) -> AsyncIterator[Parse]:
        """This process's parser."""
        yield parse_here

"""A response body in, parser events out: decompression, the size cap, then the parser.

Pure: no I/O. The caller reads chunks and stops when `stopped` says no more input is wanted.
Events come in small lists, one per decompressed piece (at most 64 KiB of document), so that a
network chunk that inflates 25 times never holds more than a piece's worth of entries.
"""

from __future__ import annotations

from _blake2 import blake2b  # hashlib's, without loading OpenSSL (auditor.urls)
from collections.abc import Iterable, Iterator

from auditor.codes import Code
from auditor.errors import CompressionError
from auditor.models import finding
from auditor.net.decompress import BodyDecoder
from auditor.sitemap.parse import SitemapParser
from auditor.sitemap.parse.events import ParseEvent

# Bytes on the wire may exceed the document's by deflate's worst-case overhead, never by more:
# past this margin, what comes is padding or empty gzip members, and reading stops.
WIRE_MARGIN_BYTES = 1 << 20


class DocumentStream:
    """One document's bytes, capped at `max_bytes` once decompressed (sitemaps.org: 50 MiB)."""

    def __init__(
        self, *, content_encoding: str | None, max_bytes: int, fingerprint: bool = False
    ) -> None:
        """`fingerprint`: keep a digest of the document's bytes (is it one read before?)."""
        self._max_bytes = max_bytes
        self._hash = blake2b(digest_size=16) if fingerprint else None
        self._parser = SitemapParser()
        self._error: str | None = None
        try:
            self._decoder: BodyDecoder | None = BodyDecoder(content_encoding)
        except CompressionError as exc:
            self._decoder = None
            self._error = str(exc)
        self.bytes = 0  # decompressed bytes given to the parser
        self.wire_bytes = 0  # bytes received, before decompression
        self.stopped = False

    @property
    def fingerprint(self) -> str | None:
        """A digest of the document's bytes read so far (decompressed), when one is kept."""
        return self._hash.hexdigest() if self._hash is not None else None

    @property
    def compressed(self) -> bool:
        """True when the document itself was a gzip file (whatever the transport did)."""
        return self._decoder is not None and self._decoder.compressed

    def feed(self, chunk: bytes) -> Iterator[list[ParseEvent]]:
        """Take one chunk of the body; yield the events it completes, piece by piece."""
        self.wire_bytes += len(chunk)
        if not self.stopped and self.wire_bytes > self._max_bytes + WIRE_MARGIN_BYTES:
            self.stopped = True
            yield [finding(Code.SITEMAP_TOO_LARGE, limit=self._max_bytes, wire=self.wire_bytes)]
        if self._decoder is not None and not self.stopped:
            yield from self._parse(self._decoder.feed(chunk))
        yield from self._ending(closing=False)

    def close(self) -> Iterator[list[ParseEvent]]:
        """End of body: flush the decoders, then the parser."""
        if self._decoder is not None and not self.stopped:
            yield from self._parse(self._decoder.close())
        yield from self._ending(closing=True)

    def _parse(self, pieces: Iterable[bytes]) -> Iterator[list[ParseEvent]]:
        try:
            for piece in pieces:
                events = self._take(piece)
                if events:
                    yield events
                if self.stopped:
                    return
        except CompressionError as exc:
            self._error = str(exc)

    def _take(self, piece: bytes) -> list[ParseEvent]:
        """Give a decompressed piece to the parser, up to the size cap."""
        room = self._max_bytes - self.bytes
        if self._hash is not None:
            self._hash.update(piece[:room])
        if len(piece) <= room:
            self.bytes += len(piece)
            events = self._parser.feed(piece)
            self.stopped = self._parser.done
            return events
        # sitemaps.org: 52,428,800 bytes at most; read up to the limit, then stop.
        events = self._parser.feed(piece[:room])
        self.bytes += room
        events.append(finding(Code.SITEMAP_TOO_LARGE, limit=self._max_bytes))
        self.stopped = True
        return events

    def _ending(self, *, closing: bool) -> Iterator[list[ParseEvent]]:
        """A compression error ends the document (reported once); so does the end of body."""
        if self._error is not None:
            error, self._error = self._error, None
            self.stopped = True
            yield [finding(Code.SITEMAP_COMPRESSION_ERROR, error=error)]
        elif closing and not self.stopped:
            self.stopped = True
            events = self._parser.close()
            if events:
                yield events
        self.stopped = self.stopped or closing

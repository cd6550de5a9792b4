"""A response body in, parser events out: decompression, the size cap, then the parser.

Pure: no I/O. The caller reads chunks and stops when `stopped` says no more input is wanted.
"""

from __future__ import annotations

from auditor.codes import Code
from auditor.decompress import BodyDecoder, CompressionError
from auditor.models import ParseEvent, SitemapKind, finding
from auditor.parse import SitemapParser


class DocumentStream:
    """One document's bytes, capped at `max_bytes` once decompressed (sitemaps.org: 50 MiB)."""

    def __init__(self, *, content_encoding: str | None, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._parser = SitemapParser()
        self._error: str | None = None
        try:
            self._decoder: BodyDecoder | None = BodyDecoder(content_encoding)
        except CompressionError as exc:
            self._decoder = None
            self._error = str(exc)
        self.bytes = 0  # decompressed bytes given to the parser
        self.stopped = self._decoder is None

    @property
    def kind(self) -> SitemapKind | None:
        """The document's kind, once known."""
        return self._parser.kind

    @property
    def compressed(self) -> bool:
        """True when the document itself was a gzip file (whatever the transport did)."""
        return self._decoder is not None and self._decoder.compressed

    def feed(self, chunk: bytes) -> list[ParseEvent]:
        """Take one chunk of the body; return the events it completed."""
        if self.stopped or self._decoder is None:
            return self._stop_events()
        events: list[ParseEvent] = []
        try:
            for piece in self._decoder.feed(chunk):
                if not self._take(piece, events):
                    break
        except CompressionError as exc:
            self._error = str(exc)
        return self._after(events)

    def close(self) -> list[ParseEvent]:
        """End of body: flush the decoders and the parser."""
        if self.stopped or self._decoder is None:
            return self._stop_events()
        events: list[ParseEvent] = []
        try:
            for piece in self._decoder.close():
                if not self._take(piece, events):
                    break
        except CompressionError as exc:
            self._error = str(exc)
        if not self.stopped and self._error is None:
            events.extend(self._parser.close())
        self.stopped = True
        return self._after(events)

    def _take(self, piece: bytes, events: list[ParseEvent]) -> bool:
        """Give a decompressed piece to the parser; False once reading must stop."""
        room = self._max_bytes - self.bytes
        if len(piece) > room:
            # sitemaps.org: 52,428,800 bytes at most; read up to the limit, then stop.
            events.extend(self._parser.feed(piece[:room]))
            self.bytes += room
            events.append(finding(Code.SITEMAP_TOO_LARGE, limit=self._max_bytes))
            self.stopped = True
            return False
        self.bytes += len(piece)
        events.extend(self._parser.feed(piece))
        if self._parser.done:
            self.stopped = True
            return False
        return True

    def _after(self, events: list[ParseEvent]) -> list[ParseEvent]:
        if self._parser.done:
            self.stopped = True
        return events + self._stop_events()

    def _stop_events(self) -> list[ParseEvent]:
        """The compression error, reported once; it ends the document."""
        if self._error is None:
            return []
        self._error = None
        self.stopped = True
        return [finding(Code.SITEMAP_COMPRESSION_ERROR, error=self._error)]

"""Incremental sitemap parser: document bytes in, typed events out (the h11 discipline).

`feed(chunk) -> events` and `close() -> events` give the same events whatever the chunking.
Stages: strict UTF-8 decoding (`utf8`: bad bytes become U+FFFD so reading goes on), prolog
sniffing (`sniff`: BOM, leading whitespace, XML or text sitemap or neither), then either expat
with defusedxml's refusals of DTDs, entities and external references (`xml_reader`), or a reader
of one URL per line (`text_reader`). Pure: no I/O.
"""

from __future__ import annotations

from auditor.codes import Code
from auditor.models import SitemapKind, finding
from auditor.sitemap.parse.events import ParseEvent
from auditor.sitemap.parse.sniff import Sniffer
from auditor.sitemap.parse.text_reader import TextReader
from auditor.sitemap.parse.utf8 import WIDE_HEAD_BYTES, Utf8Decoder, wide_encoding
from auditor.sitemap.parse.xml_reader import (
    ATOM_NS,
    LEGACY_NS,
    MAX_ENTRY_PROBLEMS,
    MAX_MARKUP_CHARS,
    SITEMAP_NS,
    XmlReader,
    classify_root,
)

__all__ = [
    "ATOM_NS",
    "LEGACY_NS",
    "MAX_ENTRY_PROBLEMS",
    "MAX_MARKUP_CHARS",
    "SITEMAP_NS",
    "SitemapParser",
    "classify_root",
    "parse_document",
]


class SitemapParser:
    """One document's parser. Not reusable: make one per document."""

    def __init__(self) -> None:
        self._decoder = Utf8Decoder()
        self._head: bytes | None = b""  # the first bytes, until their encoding is known
        self._events: list[ParseEvent] = []
        self._sniffer: Sniffer | None = Sniffer(self._events)
        self._body: XmlReader | TextReader | None = None

    @property
    def kind(self) -> SitemapKind | None:
        """The document's kind once its root (or first line) is read."""
        return self._body.kind if self._body is not None else None

    @property
    def done(self) -> bool:
        """True when further input would be ignored (refused, unsupported or broken document)."""
        if self._body is None:
            return self._sniffer is None  # sniffed as neither XML nor text
        return self._body.done

    def feed(self, data: bytes) -> list[ParseEvent]:
        """Parse the next chunk; return the events it completed."""
        if not self.done:
            data = self._after_head(data, final=False)
            if not self.done:
                self._push(self._decoder.decode(data, final=False), final=False)
        return self._take()

    def close(self) -> list[ParseEvent]:
        """End of document: flush what is pending and report truncation and bad bytes."""
        stopped_early = self.done
        if not stopped_early:
            head = self._after_head(b"", final=True)
            self._push(self._decoder.decode(head, final=True), final=True)
            if self._body is not None and not self._body.done:
                self._body.close()
        # Bad bytes are counted over the whole document, so only for one read to its end: past
        # the point where a refused document stops, how much was decoded depends on chunking.
        if self._decoder.invalid and not stopped_early:
            self._events.append(
                finding(
                    Code.XML_ENCODING,
                    "Invalid UTF-8 bytes",
                    offset=self._decoder.first_bad_offset,
                    count=self._decoder.invalid,
                )
            )
        return self._take()

    def _after_head(self, data: bytes, *, final: bool) -> bytes:
        """The bytes to decode as UTF-8, once the first ones show no wider encoding.

        A document in UTF-16 or UTF-32 is refused at once (`xml.encoding`): decoded as UTF-8,
        it would be mistaken for anything (expat even reads UTF-16 given as UTF-8 bytes).
        """
        if self._head is None:
            return data
        head = self._head + data
        if len(head) < WIDE_HEAD_BYTES and not final:
            self._head = head
            return b""
        self._head = None
        encoding = wide_encoding(head)
        if encoding is None:
            return head
        message = f"Encoded in {encoding} (sitemaps must be UTF-8)"
        self._events.append(finding(Code.XML_ENCODING, message, encoding=encoding))
        self._sniffer = None  # done: neither XML nor text can be read from it
        return b""

    def _push(self, text: str, *, final: bool) -> None:
        if self._sniffer is not None:
            sniffed = self._sniffer.sniff(text, final=final)
            if sniffed is None:
                return
            self._sniffer = None
            self._body, text = sniffed
        if self._body is not None and text:
            self._body.feed(text)

    def _take(self) -> list[ParseEvent]:
        events = self._events[:]
        self._events.clear()
        return events


def parse_document(data: bytes) -> list[ParseEvent]:
    """Parse a whole document at once (tests, small inputs)."""
    parser = SitemapParser()
    return [*parser.feed(data), *parser.close()]

"""Incremental sitemap parser: document bytes in, typed events out (the h11 discipline).

`feed(chunk) -> events` and `close() -> events` give the same events whatever the chunking.
Stages: strict UTF-8 decoding (bad bytes become U+FFFD so reading goes on), prolog sniffing (BOM,
leading whitespace, XML or text sitemap or neither), then either expat, with defusedxml's refusals
of DTDs, entities and external references, or a reader of one URL per line.
Pure: no I/O.
"""

from __future__ import annotations

import codecs
from xml.parsers import expat

from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.ElementTree import DefusedXMLParser

from auditor.codes import Code
from auditor.models import (
    Finding,
    ParseEvent,
    RootFound,
    SitemapEntry,
    SitemapKind,
    UrlEntry,
    finding,
)

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
LEGACY_NS = "http://www.google.com/schemas/sitemap/0.84"  # Search Console: "Incorrect namespace"
ATOM_NS = "http://www.w3.org/2005/Atom"
# How far into a document that does not start with '<' we look for a late XML declaration.
SNIFF_CHARS = 1024
_XML_SPACE = " \t\r\n"
_LOC, _LASTMOD, _CHANGEFREQ, _PRIORITY = range(4)
_REPLACEMENT = "\ufffd".encode()
# A value longer than this is cut here (its length is still reported): a hostile 50 MiB <loc>
# must not be copied into entries, findings and the report. Far above any valid value.
MAX_FIELD_CHARS = 8192
# One piece of markup (a tag, comment, processing instruction) may span no more than this:
# expat 2.5 scans an unfinished one again from its start at each chunk (quadratic: a 50 MiB
# comment costs minutes of CPU). Text is not markup: expat hands it over as it comes.
MAX_MARKUP_CHARS = 1 << 20
# Distinct problems kept per entry (repeats are counted, not repeated); the rest are folded.
MAX_ENTRY_PROBLEMS = 16
_URL_FIELDS = {"loc": _LOC, "lastmod": _LASTMOD, "changefreq": _CHANGEFREQ, "priority": _PRIORITY}
_INDEX_FIELDS = {"loc": _LOC, "lastmod": _LASTMOD}


class SitemapParser:
    """One document's parser. Not reusable: make one per document."""

    def __init__(self) -> None:
        self._decoder = _Utf8Decoder()
        self._events: list[ParseEvent] = []
        self._sniffer: _Sniffer | None = _Sniffer(self._events)
        self._body: _XmlReader | _TextReader | None = None

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
            self._push(self._decoder.decode(data, final=False), final=False)
        return self._take()

    def close(self) -> list[ParseEvent]:
        """End of document: flush what is pending and report truncation and bad bytes."""
        stopped_early = self.done
        if not stopped_early:
            self._push(self._decoder.decode(b"", final=True), final=True)
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


class _Utf8Decoder:
    """Incremental UTF-8 in linear time: invalid sequences become U+FFFD and are counted."""

    def __init__(self) -> None:
        self._pending = b""  # an incomplete sequence at the end of the last chunk
        self._offset = 0  # bytes decoded so far
        self.first_bad_offset: int | None = None
        self.invalid = 0  # invalid sequences (each replaced by one U+FFFD)

    def decode(self, data: bytes, *, final: bool) -> str:
        data = self._pending + data if self._pending else data
        if self.first_bad_offset is None:  # strict until the first error, to locate it
            try:
                text, used = codecs.utf_8_decode(data, "strict", final)
            except UnicodeDecodeError as exc:
                self.first_bad_offset = self._offset + exc.start
            else:
                return self._consumed(data, used, text)
        text, used = codecs.utf_8_decode(data, "replace", final)
        # Replacements made, less the U+FFFD the document really holds (EF BF BD).
        self.invalid += text.count("\ufffd") - data.count(_REPLACEMENT, 0, used)
        return self._consumed(data, used, text)

    def _consumed(self, data: bytes, used: int, text: str) -> str:
        self._offset += used
        self._pending = data[used:]
        return text


class _Sniffer:
    """Reads the prolog until it can tell XML from a text sitemap from anything else."""

    def __init__(self, events: list[ParseEvent]) -> None:
        self._events = events
        self._started = False
        self._bom = False
        self._space_lines = 0  # newlines in the skipped prefix
        self._space_columns = 0  # characters of the skipped prefix after its last newline
        self._spaced = False
        self._head = ""

    def sniff(
        self, text: str, *, final: bool
    ) -> tuple[_XmlReader | _TextReader | None, str] | None:
        """The body reader and the text to give it, or None while more input is needed."""
        if not self._started and text:
            self._started = True
            if text[0] == "\ufeff":
                self._bom = True
                self._space_columns = 1
                text = text[1:]
        if not self._head:
            stripped = text.lstrip(_XML_SPACE)
            self._skip(text[: len(text) - len(stripped)])
            self._spaced = self._spaced or len(stripped) < len(text)
            text = stripped
        self._head += text
        return self._decide(final=final)

    def _decide(self, *, final: bool) -> tuple[_XmlReader | _TextReader | None, str] | None:
        head = self._head
        if not head:
            return (None, "") if final else None
        if head[0] == "<":
            return self._xml_start(head, final=final)
        return self._other_start(head, final=final)

    def _other_start(
        self, head: str, *, final: bool
    ) -> tuple[_XmlReader | _TextReader | None, str] | None:
        """A text sitemap, junk before a late XML declaration, or not a sitemap at all."""
        if head[:8].lower().startswith(("http://", "https://")):
            self._events.append(RootFound(SitemapKind.TEXT, None))
            return _TextReader(self._events, first_line=self._space_lines + 1), head
        if len(head) < 8 and not final:
            return None
        declaration = head.find("<?xml", 0, SNIFF_CHARS)
        if declaration > 0:
            self._skip(head[:declaration])
            self._report_prefix("junk")
            return self._xml_reader(), head[declaration:]
        if len(head) < SNIFF_CHARS and not final:
            return None
        self._unsupported("neither XML nor a text sitemap")
        return None, ""

    def _xml_start(self, head: str, *, final: bool) -> tuple[_XmlReader | None, str] | None:
        if len(head) < 14 and not final:
            return None  # not enough to tell a declaration or an HTML doctype yet
        if head[:14].lower() == "<!doctype html":
            self._unsupported("an HTML page")
            return None, ""
        declared = head.startswith("<?xml") and len(head) > 5 and head[5] in _XML_SPACE
        self._report_prefix("whitespace" if self._spaced and declared else "bom")
        return self._xml_reader(), head

    def _skip(self, prefix: str) -> None:
        """Account for a skipped prefix, so that positions still point into the document."""
        newline = prefix.rfind("\n")
        if newline < 0:
            self._space_columns += len(prefix)
            return
        self._space_lines += prefix.count("\n")
        self._space_columns = len(prefix) - newline - 1

    def _xml_reader(self) -> _XmlReader:
        return _XmlReader(self._events, self._space_lines, self._space_columns)

    def _report_prefix(self, kind: str) -> None:
        # PROTOCOL.md: nothing may precede <?xml; a BOM there makes Google say "unable to read".
        if self._bom:
            kind = "bom"
        elif kind == "bom":
            return
        self._events.append(finding(Code.XML_LEADING_WHITESPACE, kind=kind))

    def _unsupported(self, what: str) -> None:
        message = f"Not a sitemap: {what}"
        self._events.append(finding(Code.SITEMAP_UNSUPPORTED_FORMAT, message, root=None))


class _NotASitemapError(Exception):
    """Raised from inside expat's callbacks to stop reading a document that is not a sitemap."""


class _XmlReader:
    """Expat callbacks turned into entries; only the values of the current entry are held."""

    def __init__(self, events: list[ParseEvent], line_offset: int, column_offset: int) -> None:
        parser = DefusedXMLParser(forbid_dtd=True).parser  # carries defusedxml's refusals
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = self._data
        parser.XmlDeclHandler = self._declaration
        self._parser = parser
        self._events = events
        self._line_offset = line_offset
        self._column_offset = column_offset  # of the first line only
        self.kind: SitemapKind | None = None
        self.done = False
        self._depth = 0
        self._entry_depth = 0  # depth of <url>/<sitemap>/<item>/<entry>; 0 before the root
        self._entry_tag = ""
        self._fields: dict[str, int] = {}
        self._own_ns = ""  # "namespace}" of the root, to spot unknown elements of it
        self._in_entry = False
        self._values: list[str | None] = [None] * 4
        self._seen = 0  # bit per field slot already met in this entry
        self._line = 0
        self._problems = _EntryProblems()
        self._capture: int | None = None  # field slot whose text is being read; -1 = ignored
        self._text: list[str] | None = None
        self._text_chars = 0  # characters met in the field, kept or not
        self._cut = False  # a value of this entry was longer than MAX_FIELD_CHARS
        self._markup_at = -1  # expat's byte index of the markup it is still waiting to end
        self._stalled = 0  # characters fed since that markup began, at least

    def feed(self, text: str) -> None:
        self._parse(text, final=False)
        # Outside callbacks, expat's byte index is where its unfinished markup begins.
        at = self._parser.CurrentByteIndex
        if at != self._markup_at:
            self._markup_at, self._stalled = at, 0
            return
        self._stalled += len(text)
        if self._stalled > MAX_MARKUP_CHARS and not self.done:
            line = self._parser.CurrentLineNumber + self._line_offset
            column = self._parser.CurrentColumnNumber
            message = f"XML markup longer than {MAX_MARKUP_CHARS:,} characters (line {line})"
            error = "markup too long"
            self._stop(finding(Code.XML_MALFORMED, message, line=line, column=column, error=error))

    def close(self) -> None:
        self._parse("", final=True)

    def _parse(self, text: str, *, final: bool) -> None:
        try:
            self._parser.Parse(text, final)
        except _NotASitemapError:
            self.done = True
        except expat.ExpatError as exc:
            line = (exc.lineno or 0) + self._line_offset
            column = exc.offset + (self._column_offset if exc.lineno == 1 else 0)
            error = expat.ErrorString(exc.code)
            message = f"XML is not well-formed: {error} (line {line}, column {column})"
            self._stop(finding(Code.XML_MALFORMED, message, line=line, column=column, error=error))
        except DTDForbidden as exc:
            if self.kind is None and (exc.name or "").lower() == "html":
                message = "Not a sitemap: an HTML page"
                self._stop(finding(Code.SITEMAP_UNSUPPORTED_FORMAT, message, root="html"))
            else:
                self._stop(finding(Code.XML_FORBIDDEN, kind="dtd"))
        except EntitiesForbidden:
            self._stop(finding(Code.XML_FORBIDDEN, kind="entity"))
        except ExternalReferenceForbidden:
            self._stop(finding(Code.XML_FORBIDDEN, kind="external"))

    def _stop(self, problem: Finding) -> None:
        self._events.append(problem)
        self.done = True

    def _declaration(self, _version: str, encoding: str | None, _standalone: int) -> None:
        if encoding is not None and encoding.lower() not in ("utf-8", "utf8"):
            message = f"Declared encoding {encoding} (sitemaps must be UTF-8)"
            self._events.append(finding(Code.XML_ENCODING, message, declared=encoding))

    def _start(self, name: str, attributes: list[str]) -> None:
        self._depth += 1
        depth = self._depth
        if depth == self._entry_depth + 1 and self._in_entry:
            self._start_field(name, attributes)
        elif depth == self._entry_depth:
            if name == self._entry_tag:
                self._in_entry = True
                self._line = self._parser.CurrentLineNumber + self._line_offset
            elif self._is_own(name):
                line = self._parser.CurrentLineNumber + self._line_offset
                self._events.append(_unknown_tag(name, line))
        elif self.kind is None:
            self._start_root(name)

    def _start_field(self, name: str, attributes: list[str]) -> None:
        slot = self._fields.get(name)
        if slot is None:
            if self._is_own(name):
                line = self._parser.CurrentLineNumber + self._line_offset
                self._problems.add(Code.ENTRY_UNKNOWN_TAG, _local(name), line)
            return
        if slot == _LOC and self.kind is SitemapKind.ATOM:  # <link href=".."/>: no text to read
            self._atom_link(attributes)
            return
        if self._seen & (1 << slot):
            line = self._parser.CurrentLineNumber + self._line_offset
            self._problems.add(Code.ENTRY_DUPLICATE_TAG, _local(name), line)
            self._capture = -1
            return
        self._seen |= 1 << slot
        self._capture = slot
        self._text = []
        self._text_chars = 0

    def _atom_link(self, attributes: list[str]) -> None:
        pairs = dict(zip(attributes[::2], attributes[1::2], strict=True))
        if self._values[_LOC] is None and pairs.get("rel", "alternate") == "alternate":
            self._values[_LOC] = pairs.get("href", "").strip()

    def _data(self, text: str) -> None:
        if self._text is not None:
            room = MAX_FIELD_CHARS - self._text_chars
            self._text_chars += len(text)
            if room > 0:
                self._text.append(text if len(text) <= room else text[:room])

    def _end(self, _name: str) -> None:
        depth = self._depth
        self._depth -= 1
        if self._capture is not None and depth == self._entry_depth + 1:
            if self._text is not None:
                self._values[self._capture] = "".join(self._text).strip(_XML_SPACE)
                self._cut = self._cut or self._text_chars > MAX_FIELD_CHARS
            self._capture = None
            self._text = None
        elif depth == self._entry_depth and self._in_entry:
            self._end_entry()

    def _end_entry(self) -> None:
        loc, lastmod, changefreq, priority = self._values
        problems = self._problems.take(url=loc)
        if self.kind is SitemapKind.SITEMAPINDEX:
            entry: ParseEvent = SitemapEntry(loc, self._line, lastmod, problems, cut=self._cut)
        else:
            entry = UrlEntry(loc, self._line, lastmod, changefreq, priority, problems, self._cut)
        self._events.append(entry)
        self._in_entry = False
        self._values = [None] * 4
        self._seen = 0
        self._cut = False

    def _start_root(self, name: str) -> None:
        namespace, _, local = name.rpartition("}")
        kind, problem = classify_root(namespace or None, local)
        if kind is not None:
            self.kind = kind
            self._events.append(RootFound(kind, namespace or None))
        if problem is not None:
            self._events.append(problem)
        if kind is None:
            raise _NotASitemapError
        prefix = f"{namespace}}}" if namespace else ""
        match kind:
            case SitemapKind.URLSET | SitemapKind.SITEMAPINDEX:
                self._own_ns = prefix
                fields = _URL_FIELDS if kind is SitemapKind.URLSET else _INDEX_FIELDS
                self._entry_depth = 2
                self._entry_tag = f"{prefix}{'url' if kind is SitemapKind.URLSET else 'sitemap'}"
                self._fields = {f"{prefix}{tag}": slot for tag, slot in fields.items()}
            case SitemapKind.RSS:  # rss/channel/item/link (Google: RSS 2.0 as a sitemap)
                self._own_ns = "\0"  # RSS has no namespace of its own to police
                self._entry_depth, self._entry_tag = 3, "item"
                self._fields = {"link": _LOC}
            case SitemapKind.ATOM:  # feed/entry/link@href and entry/updated (Atom 1.0)
                self._own_ns = "\0"
                self._entry_depth, self._entry_tag = 2, f"{ATOM_NS}}}entry"
                self._fields = {f"{ATOM_NS}}}link": _LOC, f"{ATOM_NS}}}updated": _LASTMOD}
            case _:
                raise AssertionError(kind)

    def _is_own(self, name: str) -> bool:
        """True for an element in the root's own namespace (unknown ones there are reported)."""
        if self._own_ns == "\0":
            return False
        if self._own_ns:
            return name.startswith(self._own_ns)
        return "}" not in name


def classify_root(namespace: str | None, local: str) -> tuple[SitemapKind | None, Finding | None]:
    """The kind a root element makes a document, and what is wrong with it."""
    if local in ("urlset", "sitemapindex"):
        kind = SitemapKind.URLSET if local == "urlset" else SitemapKind.SITEMAPINDEX
        if namespace == SITEMAP_NS:
            return kind, None
        problem = (
            "legacy" if namespace == LEGACY_NS else "missing" if namespace is None else "wrong"
        )
        return kind, finding(Code.SITEMAP_BAD_NAMESPACE, kind=problem, namespace=namespace)
    if local == "rss" and namespace is None:
        return SitemapKind.RSS, None
    if local == "feed" and namespace == ATOM_NS:
        return SitemapKind.ATOM, None
    message = f"Not a sitemap: root element <{local}>"
    return None, finding(Code.SITEMAP_UNSUPPORTED_FORMAT, message, root=local, namespace=namespace)


def _local(name: str) -> str:
    return name.rpartition("}")[2]


def _unknown_tag(name: str, line: int, *, url: str | None = None, count: int = 1) -> Finding:
    tag = _local(name)
    message = f"Unknown element <{tag}>"
    if count > 1:
        return finding(Code.ENTRY_UNKNOWN_TAG, message, url=url, tag=tag, line=line, count=count)
    return finding(Code.ENTRY_UNKNOWN_TAG, message, url=url, tag=tag, line=line)


class _EntryProblems:
    """Structural problems of one entry, bounded.

    A repeat is counted, not repeated; past MAX_ENTRY_PROBLEMS distinct ones, the rest are
    folded under the tag "*".
    """

    def __init__(self) -> None:
        self._seen: dict[tuple[Code, str], list[int]] = {}  # (code, tag) -> [first line, count]

    def add(self, code: Code, tag: str, line: int) -> None:
        key = (code, tag)
        if key not in self._seen and len(self._seen) >= MAX_ENTRY_PROBLEMS:
            key = (code, "*")
        known = self._seen.get(key)
        if known is None:
            self._seen[key] = [line, 1]
        else:
            known[1] += 1

    def take(self, *, url: str | None) -> tuple[Finding, ...]:
        """The entry's findings; the collector is then empty for the next entry."""
        if not self._seen:
            return ()
        found: list[Finding] = []
        for (code, tag), (line, count) in self._seen.items():
            if code is Code.ENTRY_UNKNOWN_TAG:
                found.append(_unknown_tag(tag, line, url=url or None, count=count))
            elif count > 1:
                found.append(finding(code, url=url or None, tag=tag, line=line, count=count))
            else:
                found.append(finding(code, url=url or None, tag=tag, line=line))
        self._seen = {}
        return tuple(found)


class _TextReader:
    """A text sitemap: one absolute URL per line, UTF-8, nothing else (sitemaps.org)."""

    kind = SitemapKind.TEXT
    done = False

    def __init__(self, events: list[ParseEvent], *, first_line: int) -> None:
        self._events = events
        self._line = first_line - 1
        self._partial: list[str] = []  # the current line so far, in pieces (no quadratic joins)
        self._partial_chars = 0  # ...and its length: past MAX_FIELD_CHARS, pieces are dropped

    def feed(self, text: str) -> None:
        lines = text.split("\n")
        self._extend(lines[0])
        if len(lines) == 1:
            return
        self._line_done("".join(self._partial), cut=self._partial_chars > MAX_FIELD_CHARS)
        for line in lines[1:-1]:
            self._line_done(line[:MAX_FIELD_CHARS], cut=len(line) > MAX_FIELD_CHARS)
        self._partial, self._partial_chars = [], 0
        self._extend(lines[-1])

    def close(self) -> None:
        self._line_done("".join(self._partial), cut=self._partial_chars > MAX_FIELD_CHARS)
        self._partial, self._partial_chars = [], 0

    def _extend(self, piece: str) -> None:
        room = MAX_FIELD_CHARS - self._partial_chars
        self._partial_chars += len(piece)
        if room > 0 and piece:
            self._partial.append(piece[:room])

    def _line_done(self, raw: str, *, cut: bool) -> None:
        self._line += 1
        value = raw.strip()
        if not value:
            return
        if value[:8].lower().startswith(("http://", "https://")):
            self._events.append(UrlEntry(value, self._line, cut=cut))
            return
        self._events.append(
            finding(Code.SITEMAP_INVALID_TEXT_LINE, line=self._line, value=value[:200])
        )

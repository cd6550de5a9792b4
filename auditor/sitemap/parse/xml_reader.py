"""A sitemap in XML: expat callbacks (with defusedxml's refusals) turned into entries.

urlset, sitemapindex, RSS 2.0 and Atom 1.0; only the values of the current entry are held.
Pure: no I/O.
"""

from __future__ import annotations

from xml.parsers import expat

from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.ElementTree import DefusedXMLParser

from auditor.codes import Code
from auditor.limits import MAX_FIELD_CHARS
from auditor.models import Finding, SitemapKind, finding
from auditor.sitemap.parse.events import ParseEvent, RootFound, SitemapEntry, UrlEntry
from auditor.sitemap.parse.extensions import FAMILIES, XHTML_LINK, ExtensionReader

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
LEGACY_NS = "http://www.google.com/schemas/sitemap/0.84"  # Search Console: "Incorrect namespace"
# The protocol's namespace written with https: Google's own example does (Search Central blog,
# "Best practices for XML sitemaps and RSS/Atom feeds", 2014): a notice, never an error
# (docs/explanation/rules.md#namespace).
SITEMAP_NS_HTTPS = "https://www.sitemaps.org/schemas/sitemap/0.9"
ATOM_NS = "http://www.w3.org/2005/Atom"
# Feeds other crawlers read too, and so do we (docs/explanation/rules.md#feeds): RSS 1.0 (RDF) and
# Atom 0.3.
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RSS1_NS = "http://purl.org/rss/1.0/"
DC_NS = "http://purl.org/dc/elements/1.1/"
ATOM03_NS = "http://purl.org/atom/ns#"
XML_SPACE = " \t\r\n"
_LOC, _LASTMOD, _CHANGEFREQ, _PRIORITY = range(4)
# One piece of markup (a tag, comment, processing instruction) may span no more than this:
# expat 2.5 scans an unfinished one again from its start at each chunk (quadratic: a 50 MiB
# comment costs minutes of CPU). Text is not markup: expat hands it over as it comes.
MAX_MARKUP_CHARS = 1 << 20
# Elements open at once. expat keeps every open element (about 120 bytes each): 16 million
# unclosed ones, 48 MB of text from a 50 KB gzip, held 2 GB. A sitemap needs five levels
# (urlset/url/news:news/news:publication/news:name), an Atom entry's XHTML content a few more.
MAX_XML_DEPTH = 64
# Distinct problems kept per entry (repeats are counted, not repeated); the rest are folded.
MAX_ENTRY_PROBLEMS = 16
_URL_FIELDS = {"loc": _LOC, "lastmod": _LASTMOD, "changefreq": _CHANGEFREQ, "priority": _PRIORITY}
_INDEX_FIELDS = {"loc": _LOC, "lastmod": _LASTMOD}


class _NotASitemapError(Exception):
    """Raised from inside expat's callbacks to stop reading a document that is not a sitemap."""


class _TooDeepError(Exception):
    """Raised from inside expat's callbacks past MAX_XML_DEPTH open elements."""


class XmlReader:
    """Expat callbacks turned into entries; only the values of the current entry are held."""

    def __init__(self, events: list[ParseEvent], line_offset: int, column_offset: int) -> None:
        parser = DefusedXMLParser(forbid_dtd=True).parser  # carries defusedxml's refusals
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = self._data
        parser.XmlDeclHandler = self._declaration
        parser.StartNamespaceDeclHandler = self._namespace
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
        # The entry's <loc> was longer than MAX_FIELD_CHARS. Per field: a cut <lastmod> is
        # no long <loc> (docs/explanation/rules.md#one-field-one-blame).
        self._loc_cut = False
        self._declared: set[str] = set()  # extension families the root declares
        self._ext = ExtensionReader()  # hreflang, image, video and news elements of an entry
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
        except _TooDeepError:
            line = self._parser.CurrentLineNumber + self._line_offset
            column = self._parser.CurrentColumnNumber
            message = f"XML nested deeper than {MAX_XML_DEPTH} elements (line {line})"
            error = "nesting too deep"
            self._stop(finding(Code.XML_MALFORMED, message, line=line, column=column, error=error))
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

    def _namespace(self, _prefix: str | None, uri: str) -> None:
        if self.kind is None and uri in FAMILIES:
            self._declared.add(FAMILIES[uri])

    def _start(self, name: str, attributes: list[str]) -> None:
        self._depth += 1
        depth = self._depth
        if depth > MAX_XML_DEPTH:
            raise _TooDeepError
        if self._in_entry and depth > self._entry_depth:
            if self._ext.open:
                self._ext.start(name, attributes, depth=depth, line=0)
            elif depth == self._entry_depth + 1:
                self._start_field(name, attributes)
        elif depth == self._entry_depth:
            if name == self._entry_tag:
                self._in_entry = True
                self._line = self._parser.CurrentLineNumber + self._line_offset
                self._ext.take()  # what a broken entry before this one left behind
            elif self._is_own(name):
                line = self._parser.CurrentLineNumber + self._line_offset
                self._events.append(_unknown_tag(name, line))
        elif self.kind is None:
            self._start_root(name)

    def _start_field(self, name: str, attributes: list[str]) -> None:
        slot = self._fields.get(name)
        if slot is None:
            if name == XHTML_LINK and self.kind is SitemapKind.URLSET:
                self._ext.link(attributes)
            elif self.kind is SitemapKind.URLSET and self._ext.is_extension(name):
                line = self._parser.CurrentLineNumber + self._line_offset
                self._ext.start(name, attributes, depth=self._depth, line=line)
            elif self._is_own(name):
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
        elif self._ext.open:
            self._ext.data(text)

    def _end(self, _name: str) -> None:
        depth = self._depth
        self._depth -= 1
        if self._ext.open:
            self._ext.end(depth)
        elif self._capture is not None and depth == self._entry_depth + 1:
            if self._text is not None:
                self._values[self._capture] = "".join(self._text).strip(XML_SPACE)
                if self._capture == _LOC:
                    self._loc_cut = self._text_chars > MAX_FIELD_CHARS
            self._capture = None
            self._text = None
        elif depth == self._entry_depth and self._in_entry:
            self._end_entry()

    def _end_entry(self) -> None:
        loc, lastmod, changefreq, priority = self._values
        problems = self._problems.take(url=loc)
        if self.kind is SitemapKind.SITEMAPINDEX:
            entry: ParseEvent = SitemapEntry(
                loc, self._line, lastmod, problems, loc_cut=self._loc_cut
            )
        else:
            entry = UrlEntry(
                loc,
                self._line,
                lastmod,
                changefreq,
                priority,
                problems,
                self._loc_cut,
                self._ext.take(),
            )
        self._events.append(entry)
        self._in_entry = False
        self._values = [None] * 4
        self._seen = 0
        self._loc_cut = False

    def _start_root(self, name: str) -> None:
        namespace, _, local = name.rpartition("}")
        kind, problem = classify_root(namespace or None, local)
        if kind is not None:
            self.kind = kind
            self._events.append(RootFound(kind, namespace or None, frozenset(self._declared)))
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
            case SitemapKind.RSS:
                self._own_ns = "\0"  # RSS has no namespace of its own to police
                self._read_rss(namespace)
            case SitemapKind.ATOM:  # feed/entry/link@href, and when it changed
                self._own_ns = "\0"
                updated = "updated" if namespace == ATOM_NS else "modified"  # 1.0, 0.3
                self._entry_depth, self._entry_tag = 2, f"{prefix}entry"
                self._fields = {f"{prefix}link": _LOC, f"{prefix}{updated}": _LASTMOD}
            case _:
                raise AssertionError(kind)

    def _read_rss(self, namespace: str) -> None:
        """Where an RSS feed's entries are, by version.

        RSS 2.0: rss/channel/item with link and pubDate (Google: RSS 2.0 as a sitemap). RSS 1.0:
        rdf:RDF/item, a sibling of the channel, with link and dc:date.
        """
        if namespace == RDF_NS:
            self._entry_depth, self._entry_tag = 2, f"{RSS1_NS}}}item"
            self._fields = {f"{RSS1_NS}}}link": _LOC, f"{DC_NS}}}date": _LASTMOD}
        else:
            self._entry_depth, self._entry_tag = 3, "item"
            self._fields = {"link": _LOC, "pubDate": _LASTMOD}

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
        if namespace == SITEMAP_NS_HTTPS:
            return kind, finding(Code.SITEMAP_NAMESPACE_HTTPS, namespace=namespace)
        problem = (
            "legacy" if namespace == LEGACY_NS else "missing" if namespace is None else "wrong"
        )
        return kind, finding(Code.SITEMAP_BAD_NAMESPACE, kind=problem, namespace=namespace)
    if (local, namespace) in (("rss", None), ("RDF", RDF_NS)):
        return SitemapKind.RSS, None
    if local == "feed" and namespace in (ATOM_NS, ATOM03_NS):
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

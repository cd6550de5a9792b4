"""The prolog: a BOM, leading whitespace or junk, then XML, a text sitemap or neither.

Pure: no I/O.
"""

from __future__ import annotations

from auditor.codes import Code
from auditor.models import SitemapKind, finding
from auditor.sitemap.parse.events import ParseEvent, RootFound
from auditor.sitemap.parse.text_reader import TextReader
from auditor.sitemap.parse.xml_reader import XML_SPACE, XmlReader

# How far into a document that does not start with '<' we look for a late XML declaration.
SNIFF_CHARS = 1024


class Sniffer:
    """Reads the prolog until it can tell XML from a text sitemap from anything else."""

    def __init__(self, events: list[ParseEvent]) -> None:
        self._events = events
        self._started = False
        self._bom = False
        self._space_lines = 0  # newlines in the skipped prefix
        self._space_columns = 0  # characters of the skipped prefix after its last newline
        self._spaced = False
        self._head = ""

    def sniff(self, text: str, *, final: bool) -> tuple[XmlReader | TextReader | None, str] | None:
        """The body reader and the text to give it, or None while more input is needed."""
        if not self._started and text:
            self._started = True
            if text[0] == "\ufeff":
                self._bom = True
                self._space_columns = 1
                text = text[1:]
        if not self._head:
            stripped = text.lstrip(XML_SPACE)
            self._skip(text[: len(text) - len(stripped)])
            self._spaced = self._spaced or len(stripped) < len(text)
            text = stripped
        self._head += text
        return self._decide(final=final)

    def _decide(self, *, final: bool) -> tuple[XmlReader | TextReader | None, str] | None:
        head = self._head
        if not head:
            return (None, "") if final else None
        if head[0] == "<":
            return self._xml_start(head, final=final)
        return self._other_start(head, final=final)

    def _other_start(
        self, head: str, *, final: bool
    ) -> tuple[XmlReader | TextReader | None, str] | None:
        """A text sitemap, junk before a late XML declaration, or not a sitemap at all."""
        if head[:8].lower().startswith(("http://", "https://")):
            self._events.append(RootFound(SitemapKind.TEXT, None))
            return TextReader(self._events, first_line=self._space_lines + 1), head
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

    def _xml_start(self, head: str, *, final: bool) -> tuple[XmlReader | None, str] | None:
        if len(head) < 14 and not final:
            return None  # not enough to tell a declaration or an HTML doctype yet
        if head[:14].lower() == "<!doctype html":
            self._unsupported("an HTML page")
            return None, ""
        declared = head.startswith("<?xml") and len(head) > 5 and head[5] in XML_SPACE
        self._report_prefix("whitespace" if self._spaced and declared else None)
        return self._xml_reader(), head

    def _skip(self, prefix: str) -> None:
        """Account for a skipped prefix, so that positions still point into the document."""
        newline = prefix.rfind("\n")
        if newline < 0:
            self._space_columns += len(prefix)
            return
        self._space_lines += prefix.count("\n")
        self._space_columns = len(prefix) - newline - 1

    def _xml_reader(self) -> XmlReader:
        return XmlReader(self._events, self._space_lines, self._space_columns)

    def _report_prefix(self, kind: str | None) -> None:
        """What precedes the XML declaration: `kind` (whitespace, junk), and a BOM.

        docs/explanation/rules.md#before-xml: nothing but a UTF-8 BOM may precede `<?xml` (XML 1.0
        §4.3.3 allows the BOM; whitespace makes Google say "unable to read"): the BOM alone is a
        notice.
        """
        if kind is not None:
            prefix = finding(Code.XML_LEADING_WHITESPACE, kind=kind)
            if self._bom:
                prefix = finding(Code.XML_LEADING_WHITESPACE, kind=kind, bom=True)
            self._events.append(prefix)
        elif self._bom:
            self._events.append(finding(Code.XML_BOM))

    def _unsupported(self, what: str) -> None:
        message = f"Not a sitemap: {what}"
        self._events.append(finding(Code.SITEMAP_UNSUPPORTED_FORMAT, message, root=None))

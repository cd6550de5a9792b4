"""A text sitemap: one absolute URL per line, UTF-8, nothing else (sitemaps.org). Pure: no I/O."""

from __future__ import annotations

from auditor.codes import Code
from auditor.limits import MAX_FIELD_CHARS
from auditor.models import SitemapKind, finding
from auditor.sitemap.parse.events import ParseEvent, UrlEntry


class TextReader:
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
            self._events.append(UrlEntry(value, self._line, loc_cut=cut))
            return
        self._events.append(
            finding(Code.SITEMAP_INVALID_TEXT_LINE, line=self._line, value=value[:200])
        )

"""Strings as inert Markdown that reads as plain text too: in a job summary, a terminal, a chat.

A string from the network can neither close a table cell nor become a link, an image or HTML;
only the characters CommonMark and GitHub's tables could read as markup are escaped, so that
`(--fail-on never)` stays as written. URLs and codes go in code spans, where nothing is markup.
Pure: no I/O.
"""

from __future__ import annotations

import re

MAX_CHARS = 200  # a URL or a message shown whole up to here
# CommonMark: backslash escapes, code, emphasis, links and images, autolinks and HTML; GitHub:
# table cells (|) and strikethrough (~). An underscore between two letters or digits is never
# emphasis (CommonMark §6.2, left- and right-flanking runs), so `client_error` is left alone;
# `&` only where it would start an entity (`&amp;`).
_SPECIAL = re.compile(r"[\\`*\[\]<>|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|&(?=#?[A-Za-z0-9]+;)")
_TICKS = re.compile(r"`+")
# `<loc>` in a title or a message reads as an HTML tag to GitHub (and vanishes): a code span.
_TAG = re.compile(r"<[A-Za-z][\w:.-]{0,40}>")


def one_line(value: object, *, limit: int = MAX_CHARS) -> str:
    """The value on one line (controls as spaces), cut to `limit` characters with an ellipsis."""
    shown = "".join(c if c.isprintable() else " " for c in str(value))
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return shown


def text(value: object, *, limit: int = MAX_CHARS) -> str:
    """A string as inert Markdown text: one line, cut, the markup characters escaped.

    A tag's name (`<loc>`) becomes a code span, readable as written everywhere.
    """
    shown, parts, start = one_line(value, limit=limit), [], 0
    for tag in _TAG.finditer(shown):
        parts.append(_escaped(shown[start : tag.start()]))
        parts.append(code(tag[0]))
        start = tag.end()
    parts.append(_escaped(shown[start:]))
    return "".join(parts)


def _escaped(shown: str) -> str:
    return _SPECIAL.sub(lambda match: "\\" + match[0], shown)


def code(value: object, *, cell: bool = False, limit: int = MAX_CHARS) -> str:
    """A code span holding the value as it is (a URL, a code); `cell`: inside a table's cell.

    The fence is one backtick longer than the longest run inside (CommonMark §6.1). In a table
    cell GitHub splits on `|` even inside code, unless escaped; the escape is then removed.
    """
    shown = one_line(value, limit=limit)
    if cell:
        shown = shown.replace("|", "\\|")
    longest = max((len(run) for run in _TICKS.findall(shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith(("`", " ")) or shown.endswith(("`", " ")) else ""
    return f"{fence}{pad}{shown}{pad}{fence}"

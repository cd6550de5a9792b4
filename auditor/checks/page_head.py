"""What a page says about its own indexing: robots rules and canonicals, in its head or headers.

A sitemap should list only canonical, indexable pages
(docs/explanation/rules.md#indexability). A page says noindex (or a past
`unavailable_after`) in `<meta name="robots|googlebot">` or an `X-Robots-Tag` header, and names
its canonical in `<link rel="canonical">` or a `Link: <...>; rel="canonical"` header (RFC 6596,
RFC 8288). The head is read as HTML, by lexbor's HTML5 parser (selectolax;
docs/explanation/dependencies.md): comments, scripts and styles hold no tags, and the head ends
where the HTML standard ends it (docs/explanation/rules.md#page-head).
Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode

from auditor.checks.canonical import is_canonical
from auditor.checks.robots_rules import NO_RULES, RobotsRules, robots_rules
from auditor.checks.soft_404 import HEAD_WORDS, says_not_found

# Where the head may end: its end tag, or the body's start. Only a candidate: one written inside
# a comment, a script or an attribute is no end (see `read_head`).
_HEAD_END = re.compile(rb"</head\s*>|<body[\s>/]", re.IGNORECASE)
_LOW_HEAD_END = re.compile(rb"</head\s*>|<body[\s>/]")  # the same, in lower-cased bytes
_MAX_CANDIDATES = 8  # candidate ends tried before the whole prefix is parsed at once
# Appended to what is parsed: where the parser puts it says where the bytes before it ended (in
# the head, in a body the head gave way to, or inside a comment, a script or an attribute).
_SENTINEL_NAME = "x-sitemap-audit-end"
_SENTINEL = f'<meta name="{_SENTINEL_NAME}">'.encode()
# A piece of every soft-404 title phrasing: one regex over the title (18 `in` tests cost 10x).
_TITLE_WORDS = re.compile(b"|".join(re.escape(word) for word in HEAD_WORDS))
# HTML standard, "shared declarative refresh steps": `<seconds>[; url=<url>]`.
_REFRESH = re.compile(
    r"[\t\n\f\r ]*(\d*)(?:\.[\d.]*)?(?:[\t\n\f\r ;,]+(?:url[\t\n\f\r ]*=[\t\n\f\r ]*)?(.*))?",
    re.IGNORECASE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class PageHead:
    """What a page's head says, as Google reads it."""

    robots: RobotsRules  # of `<meta name="robots">` and of the agents asked about
    canonicals: tuple[str, ...]  # hrefs as written (entities decoded), in document order
    base: str | None  # <base href>, against which relative hrefs resolve
    refresh: str | None = None  # an instant `<meta http-equiv="refresh">`'s URL, as written
    not_found_title: str | None = None  # the title, when it says the page was not found
    # A head the HTML standard ends before its end tag (an <img>, a <div>, text): what ended it,
    # and the robots meta or canonical after it, which Google ignores.
    cut_by: str | None = None
    hidden: tuple[str, ...] = ()
    ended: bool = True  # the head ends within the bytes read (else more may follow)

    @property
    def noindex(self) -> bool:
        """The head says noindex."""
        return self.robots.noindex


NOTHING_SAID = PageHead(NO_RULES, (), None)


def read_head(body: bytes, agents: frozenset[str], *, complete: bool = True) -> PageHead:
    """What the head of an HTML body (or of its first bytes) says, for `agents` (lower-case).

    `complete`: `body` is the whole body; else more of it may tell where the head ends. A head
    that names nothing that counts is not parsed. Google: "If you use an invalid element in the
    <head> element, Google ignores any elements that appear after the invalid element" (Search
    Central, "Use valid HTML to specify page metadata"); the HTML standard ends the head there.
    """
    low = body.lower()  # bytes.lower() keeps every offset: a match in it is one in `body`
    end = _LOW_HEAD_END.search(low)
    words = _words(agents)
    if words is not None and (end is not None or complete):
        head = low[: end.start()] if end is not None else low
        # Without a character reference, a name or rel that counts is written out: a head that
        # holds none of them (nor a soft-404 title's words), and plainly ends there, says
        # nothing (most pages: not parsed). `_titles`, inline: once a page.
        if head.find(b"&") < 0 and not _mentions(head, words):
            start = head.find(b"<title")
            titles = head[start : head.rfind(b"</title")] if start >= 0 else b""
            if _TITLE_WORDS.search(titles) is None and _plainly_ends(head):
                return NOTHING_SAID
    return _parse(body, agents, first_end=end)


# What a head's end tag may hide in: comments, and the elements whose text the HTML tokenizer
# does not read as tags (HTML standard, "Parsing HTML documents": RAWTEXT, RCDATA, script data,
# and noscript's text when scripting is on, as Google renders).
_RAW = re.compile(
    rb"<(!--|/?(?:script|style|noscript|template|title|textarea|iframe|xmp|noembed|noframes"
    rb"|plaintext)(?=[\s/>]))"
)


def _plainly_ends(head: bytes) -> bool:
    """Whether a head's bytes (lower-case) end outside any tag, comment and raw text.

    Then the end tag after them is one. Else it may be written inside one (`document.write(
    "</head>")`): the parser decides.
    """
    if head.rfind(b"<") > head.rfind(b">"):
        return False  # inside a tag, or an attribute's value
    at = 0
    while (opened := _RAW.search(head, at)) is not None:
        token = opened[1]
        if token.startswith(b"/"):  # a closer with no opener: nothing to skip
            at = opened.end()
            continue
        closer = b"-->" if token == b"!--" else b"</" + token
        end = head.find(closer, opened.end()) if token != b"plaintext" else -1
        if end < 0:
            return False
        at = end + len(closer)
    return True


def _parse(body: bytes, agents: frozenset[str], *, first_end: re.Match[bytes] | None) -> PageHead:
    """The head through the HTML parser: up to the first candidate end that is one."""
    if first_end is not None:
        for number, end in enumerate(_HEAD_END.finditer(body, first_end.start())):
            if number >= _MAX_CANDIDATES:
                break
            tree = LexborHTMLParser(body[: end.start()] + _SENTINEL, scripting=True)
            if _sentinel_in(tree.head) or _sentinel_in(tree.body):
                return _said(tree, agents, ended=True)
            # The candidate is inside a comment, a script or an attribute: the next one.
    tree = LexborHTMLParser(body + _SENTINEL, scripting=True)
    return _said(tree, agents, ended=_sentinel_in(tree.body))


def _sentinel_in(node: LexborNode | None) -> bool:
    """Whether the sentinel is the last node in `node` (it comes last: at its deepest end)."""
    while node is not None and node.last_child is not None:
        node = node.last_child
        if _is_sentinel(node):
            return True
    return False


def _said(tree: LexborHTMLParser, agents: frozenset[str], *, ended: bool) -> PageHead:
    """What the parsed head's elements say (Google reads these, and no others)."""
    robots, canonicals = NO_RULES, []
    base = refresh = title = None
    head = tree.head
    for node in head.iter() if head is not None else ():
        tag, attributes = node.tag, node.attributes
        if tag == "meta":
            name = (attributes.get("name") or "").strip().lower()
            if name in agents or name == "robots":
                robots = robots | robots_rules(attributes.get("content") or "")
            elif (attributes.get("http-equiv") or "").strip().lower() == "refresh":
                refresh = refresh or instant_refresh(attributes.get("content") or "")
        elif tag == "link" and is_canonical(attributes.get("rel") or ""):
            href = attributes.get("href")
            if href is not None:
                canonicals.append(href.strip())
        elif tag == "base" and base is None and attributes.get("href") is not None:
            base = (attributes.get("href") or "").strip()
        elif tag == "title" and title is None:
            title = node.text()
    not_found = title if title is not None and says_not_found(title) else None
    cut_by, hidden = _cut_short(tree.body, agents)
    return PageHead(robots, tuple(canonicals), base, refresh, not_found, cut_by, hidden, ended)


def _cut_short(
    body: LexborNode | None, agents: frozenset[str]
) -> tuple[str | None, tuple[str, ...]]:
    """The robots meta or canonical a head ended early left in the body, and what ended it."""
    if body is None or body.child is None:
        return None, ()
    hidden: set[str] = set()
    for node in body.css("meta[name], link[rel]"):
        attributes = node.attributes
        if node.tag == "link" and is_canonical(attributes.get("rel") or ""):
            hidden.add("canonical")
        elif node.tag == "meta":
            name = (attributes.get("name") or "").strip().lower()
            if name in agents or name == "robots":
                hidden.add("robots")
    if not hidden:
        return None, ()
    first = next(node for node in body.iter(include_text=True) if _counts(node))
    return ("text" if first.tag == "-text" else first.tag), tuple(sorted(hidden))


def _counts(node: LexborNode) -> bool:
    """An element, or text that is not whitespace (comments end no head)."""
    if node.tag == "-text":
        return bool((node.text_content or "").strip())
    return node.tag != "-comment"


def _is_sentinel(node: LexborNode) -> bool:
    return node.tag == "meta" and node.attributes == {"name": _SENTINEL_NAME}


@functools.lru_cache(maxsize=16)
def _words(agents: frozenset[str]) -> tuple[bytes, ...] | None:
    """What a head must hold, lower-case, for `read_head` to find anything in it.

    None when bytes.lower() may miss a name str.lower() matches: an agent's name that is not
    ASCII, or has a "k" (str.lower() folds the Kelvin sign, U+212A, into it).
    """
    if not all(agent.isascii() and "k" not in agent for agent in agents):
        return None
    said = (b"robots", b"canonical", b"<base", b"refresh")
    return (*said, *(agent.encode() for agent in sorted(agents)))


def _titles(head: bytes) -> bytes:
    """The part of a head (lower-case) from its first <title to its last </title."""
    start = head.find(b"<title")
    return head[start : head.rfind(b"</title")] if start >= 0 else b""


def _mentions(low: bytes, words: tuple[bytes, ...]) -> bool:
    """Whether `low` (lower-cased) holds one of `words`.

    A loop of `find`s: a regex over the words took 3x as long, `in` tests half as long again.
    """
    for word in words:  # noqa: SIM110 - see above
        if low.find(word) >= 0:
            return True
    return False


def instant_refresh(content: str) -> str | None:
    """The URL of a `<meta http-equiv="refresh">` that redirects at once (None: it does not).

    Google (Search Central, "Redirects and Google Search"): "Google Search interprets instant
    meta refresh redirects as permanent redirects". The content is parsed as the HTML standard
    says ("shared declarative refresh steps"): seconds, then the URL, quotes removed; no URL
    reloads the page itself.
    """
    match = _REFRESH.fullmatch(content)
    if match is None or not match[1] or int(match[1]) != 0:
        return None
    url = (match[2] or "").strip()
    if url[:1] in ("'", '"'):
        url = url[1:].split(url[0], 1)[0]
    return url.strip() or None

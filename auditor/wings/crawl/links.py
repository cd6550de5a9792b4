"""A page's links as a browser resolves them: `<a href>`, against `<base href>` or the page's URL.

The page is parsed by lexbor's HTML5 parser (selectolax; docs/explanation/performance.md), so
comments, scripts and templates hold no links, as in a browser. Links are resolved by RFC 3986
§5 (urllib's urljoin, which also drops the tabs and newlines the WHATWG URL parser drops), then
percent-encoded as a browser's URL parser encodes them (`/café` is requested as `/caf%C3%A9`);
only http(s) links are kept (`javascript:`, `mailto:`, `tel:`, `data:` are no pages) and the
fragment is dropped, as crawlers drop it (a link to `#top` is the page itself: left out).
Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser

from auditor.checks.robots_rules import header_robots, robots_rules
from auditor.net.redirects import encoded_url
from auditor.urls import DEFAULT_PORTS, RAW_CHARACTER

# Relations that ask crawlers not to follow one link (Google Search Central, "Qualify your
# outbound links to Google": rel="nofollow"; ugc and sponsored are hints of another kind).
_NOFOLLOW_REL = "nofollow"
_SCHEMES = tuple(f"{scheme}:" for scheme in DEFAULT_PORTS)
# What a browser's URL parser percent-encodes in a path or a query (the WHATWG URL Standard's
# path and special-query percent-encode sets, https://url.spec.whatwg.org/#path-percent-encode-set:
# C0 controls, space " < > ^ ` { } and every code point above U+007E; ' in a query), and the | \
# RFC 3986 forbids raw too, which a sitemap must escape (auditor.urls.needs_escaping). A link
# without one (nearly every link) is left as written.
# Resolutions kept per parser: a site's navigation repeats the same hrefs on every page.
_KEPT = 8192


@dataclass(frozen=True, slots=True)
class PageLinks:
    """What a page links to: absolute http(s) URLs without fragment, in document order."""

    anchors: int  # every <a href> element, whatever it names
    followed: tuple[str, ...]  # links a crawler may follow
    nofollow: tuple[str, ...]  # links marked rel="nofollow" (or all, when the page says so)


class LinkReader:
    """Reads pages' links; remembers recent resolutions (the navigation's hrefs repeat)."""

    def __init__(self, agents: frozenset[str]) -> None:
        """`agents`: lower-case robots names whose meta tags count beside `robots`."""
        self._names = agents | {"robots"}
        self._resolved: dict[tuple[str, str], str | None] = {}

    def read(self, body: bytes, *, url: str, page_nofollow: bool = False) -> PageLinks:
        """The links of the HTML `body` of the page at `url` (its final URL).

        `page_nofollow`: its X-Robots-Tag says nofollow; a robots meta tag may say so too.
        """
        tree = LexborHTMLParser(body)
        base = _base_of(tree, url)
        if not page_nofollow:
            page_nofollow = self._meta_nofollow(tree)
        followed: list[str] = []
        nofollow: list[str] = []
        anchors = 0
        resolved, resolve = self._resolved, self._resolve
        for node in tree.css("a[href]"):
            attributes = node.attributes
            anchors += 1
            href = attributes.get("href") or ""
            key = (base, href)
            target = resolved[key] if key in resolved else resolve(base, href)
            if target is None:
                continue
            rel = attributes.get("rel")
            if page_nofollow or (rel is not None and _NOFOLLOW_REL in rel.lower().split()):
                nofollow.append(target)
            else:
                followed.append(target)
        return PageLinks(anchors, tuple(followed), tuple(nofollow))

    def _resolve(self, base: str, href: str) -> str | None:
        """`href` against `base`, without fragment; None unless an http(s) URL but `base`."""
        resolved = self._resolved
        if len(resolved) >= _KEPT:
            resolved.clear()
        target: str | None = None
        text = href.strip()
        if "\\" in text:  # WHATWG URL Standard: before its query, a special URL's \ is a /
            end = next((at for at, char in enumerate(text) if char in "?#"), len(text))
            text = text[:end].replace("\\", "/") + text[end:]
        if text and not text.startswith("#"):
            try:
                absolute = urljoin(base, text)
            except ValueError:  # a bad IPv6 literal or port
                absolute = ""
            target = page_url(absolute)
        resolved[base, href] = target
        return target

    def _meta_nofollow(self, tree: LexborHTMLParser) -> bool:
        """Whether a robots meta tag (`robots` or one of the agents') says nofollow."""
        for node in tree.css("meta[name]"):
            attributes = node.attributes
            name = (attributes.get("name") or "").strip().lower()
            if name in self._names and robots_rules(attributes.get("content") or "").nofollow:
                return True
        return False


def _base_of(tree: LexborHTMLParser, url: str) -> str:
    """The document's base URL: its first `<base href>`, resolved against `url` (HTML §4.2.3).

    A base that is no http(s) URL cannot resolve a link to a page: the page's URL stands.
    """
    node = tree.css_first("base[href]")
    if node is None:
        return url
    href = (node.attributes.get("href") or "").strip()
    try:
        base = urljoin(url, href) if href else url
    except ValueError:
        return url
    return base if base[:6].lower().startswith(_SCHEMES) else url


def page_url(absolute: str) -> str | None:
    """The http(s) URL a browser requests for `absolute`, without its fragment (None: no page).

    Percent-encoded as the checks' transports send a URL (auditor.net.redirects.encoded_url):
    the UTF-8 bytes of every character RFC 3986 forbids raw (RFC 3987 §3.1), the form a
    sitemap must list. That is all a browser's URL parser encodes (the set above) but a
    query's `'`, which RFC 3986 allows raw: a sitemap may list it so. An internationalised
    host in its IDNA form (RFC 5891). None for another scheme, or a URL that cannot be
    encoded (a host without an IDNA form: a browser cannot go there either).
    """
    absolute = absolute.partition("#")[0]
    if not absolute[:6].lower().startswith(_SCHEMES):
        return None
    if RAW_CHARACTER.search(absolute) is None:
        return absolute
    try:
        return encoded_url(absolute)
    except ValueError:  # UnicodeError too
        return None


def header_nofollow(values: tuple[str, ...], agents: frozenset[str]) -> bool:
    """Whether X-Robots-Tag values say nofollow to everyone or to one of `agents` (lower-case).

    As noindex is read (auditor.checks.robots_rules): `googlebot: nofollow` is for Googlebot
    only; Google Search Central, "Robots meta tag, data-nosnippet, and X-Robots-Tag
    specifications": nofollow, and none (noindex, nofollow).
    """
    return header_robots(values, agents).nofollow

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

import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser

from auditor.checks.robots_rules import header_robots, robots_rules
from auditor.urls import DEFAULT_PORTS

# Relations that ask crawlers not to follow one link (Google Search Central, "Qualify your
# outbound links to Google": rel="nofollow"; ugc and sponsored are hints of another kind).
_NOFOLLOW_REL = "nofollow"
_SCHEMES = tuple(f"{scheme}:" for scheme in DEFAULT_PORTS)
# The code points a link is percent-encoded for (the UTF-8 bytes of each), in its path and its
# query. A browser's URL parser encodes those of the WHATWG URL Standard's path percent-encode
# set (https://url.spec.whatwg.org/#path-percent-encode-set: C0 controls, space " # < > ? ^ `
# { } and every code point above U+007E), and of its special-query percent-encode set (C0
# controls, space " # < > ' and above U+007E). Added: the few RFC 3986 forbids raw that it
# leaves (| and \, and ^ ` { } in a query), which a sitemap must escape (sitemaps.org,
# "Entity escaping"; auditor.urls.needs_escaping). Left: ', which RFC 3986 allows raw (a
# sub-delim, §2.2), so a sitemap may list it so. A '%' stays: an escape written stays one.
_ENCODE = re.compile('[\x00-\x20"#<>?\\\\^`{|}\x7f-\U0010ffff]')
# The same but '#' (the fragment is gone) and '?' (it starts the query): the whole URL's test.
_RAW = re.compile('[\x00-\x20"<>\\\\^`{|}\x7f-\U0010ffff]')
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

    Its path and query percent-encoded as a browser's URL parser encodes them, and as a sitemap
    must write them (the set above); an internationalised host in its IDNA form (RFC 5891), as
    it is resolved.
    None for another scheme, or a host that cannot be encoded (a browser cannot go there).
    """
    absolute = absolute.partition("#")[0]
    if not absolute[:6].lower().startswith(_SCHEMES):
        return None
    if _RAW.search(absolute) is None:  # nearly every link: nothing to encode
        return absolute
    try:
        parts = urlsplit(absolute)
    except ValueError:  # a bad IPv6 literal
        return None
    netloc = parts.netloc
    if not netloc.isascii():
        userinfo, at, hostport = netloc.rpartition("@")
        host, colon, port = hostport.partition(":")
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
        netloc = f"{userinfo}{at}{host}{colon}{port}"
    path = _ENCODE.sub(_escaped, parts.path)
    query = _ENCODE.sub(_escaped, parts.query)
    return urlunsplit((parts.scheme, netloc, path, query, ""))


def _escaped(match: re.Match[str]) -> str:
    """A code point's UTF-8 bytes, each as %XX (a lone surrogate's too: never an error)."""
    return "".join(f"%{byte:02X}" for byte in match[0].encode("utf-8", "surrogatepass"))


def header_nofollow(values: tuple[str, ...], agents: frozenset[str]) -> bool:
    """Whether X-Robots-Tag values say nofollow to everyone or to one of `agents` (lower-case).

    As noindex is read (auditor.checks.robots_rules): `googlebot: nofollow` is for Googlebot
    only; Google Search Central, "Robots meta tag, data-nosnippet, and X-Robots-Tag
    specifications": nofollow, and none (noindex, nofollow).
    """
    return header_robots(values, agents).nofollow

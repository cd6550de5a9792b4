"""The parser's events: what a sitemap's bytes become, entry by entry (auditor.sitemap.parse).

Records, frozen and slotted (NamedTuples where millions are made); they cross into parse helper
processes. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from auditor.models import Finding, SitemapKind


@dataclass(frozen=True, slots=True)
class RootFound:
    """The document's kind is known (first element, or first text line)."""

    kind: SitemapKind
    namespace: str | None
    extensions: frozenset[str] = frozenset()  # extension families its root declares: "news"...


class Alternate(NamedTuple):
    """One `<xhtml:link>` of an entry: a language version of the page (hreflang).

    A NamedTuple: millions are made at scale, and a frozen dataclass costs three times as much.
    """

    hreflang: str | None
    href: str | None
    rel: str | None


@dataclass(frozen=True, slots=True)
class MediaItem:
    """One `<image:image>`, `<video:video>` or `<news:news>` of an entry, as written.

    `values` maps each child's path ("loc", "publication/name") to its first text; attributes
    are `path@name` keys. A child met again is in `repeated`; `video:tag`s are only counted.
    """

    kind: str  # "image", "video" or "news"
    line: int
    values: Mapping[str, str]
    repeated: tuple[str, ...] = ()
    tags: int = 0  # <video:tag>s
    cut: bool = False  # a value was longer than limits.MAX_FIELD_CHARS: cut there


class Extensions(NamedTuple):
    """What an entry says in the extension namespaces (hreflang, image, video, news), bounded.

    Past the caps of auditor.sitemap.parse.extensions, items are counted, not kept. NamedTuples
    here and below: one is made per entry, at millions of entries.
    """

    alternates: tuple[Alternate, ...] = ()
    links: int = 0  # every <xhtml:link>, kept or not
    media: tuple[MediaItem, ...] = ()
    images: int = 0  # every <image:image>, kept or not
    videos: int = 0
    news: int = 0
    dropped: int = 0  # alternates and items past the caps
    unknown: tuple[str, ...] = ()  # elements of an extension namespace it does not define


@dataclass(slots=True)  # not frozen, as CheckResult: one is made per URL read
class UrlEntry:
    """One `<url>` (or text line, RSS item, Atom entry), values as written, stripped."""

    loc: str | None
    line: int
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    problems: tuple[Finding, ...] = ()
    loc_cut: bool = False  # the <loc> was longer than limits.MAX_FIELD_CHARS: cut there
    extensions: Extensions | None = None  # None: no element of an extension namespace


@dataclass(frozen=True, slots=True)
class SitemapEntry:
    """One `<sitemap>` of a sitemap index."""

    loc: str | None
    line: int
    lastmod: str | None = None
    problems: tuple[Finding, ...] = ()
    loc_cut: bool = False


ParseEvent = RootFound | UrlEntry | SitemapEntry | Finding

"""The demo's documents and answers: canned pages, sitemaps and indexes written as text."""

from __future__ import annotations

import gzip
from collections.abc import Mapping
from dataclasses import dataclass, field

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'


@dataclass(frozen=True, slots=True)
class Page:
    """A canned answer: status, body, headers; after `delay_s`; or `raw` bytes, not HTTP."""

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    raw: bytes | None = None  # written as they are, then the connection is closed


def xml_page(text: str, **headers: str) -> Page:
    """An XML document served as such."""
    return Page(200, text.encode(), {"Content-Type": "application/xml", **headers})


def redirect(status: int, location: str) -> Page:
    """A redirect to `location`."""
    return Page(status, b"", {"Location": location})


def urlset(entries: list[str]) -> str:
    """A sitemap from ready-made `<url>` elements."""
    body = "\n".join(entries)
    return f'{XML_HEAD}<urlset xmlns="{SITEMAP_NS}">\n{body}\n</urlset>\n'


def url(loc: str, *, lastmod: str | None = None, extra: str = "") -> str:
    """One `<url>` element."""
    when = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
    return f"  <url><loc>{loc}</loc>{when}{extra}</url>"


def sitemapindex(locs: list[str]) -> str:
    """A sitemap index listing `locs`."""
    body = "\n".join(f"  <sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return f'{XML_HEAD}<sitemapindex xmlns="{SITEMAP_NS}">\n{body}\n</sitemapindex>\n'


def gzipped(data: bytes) -> bytes:
    """Gzip with a fixed mtime, so the same input gives the same bytes."""
    return gzip.compress(data, mtime=0)

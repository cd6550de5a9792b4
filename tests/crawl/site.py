"""Small loopback sites for the crawl's tests: pages whose links are written out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import Route

HTML = {"Content-Type": "text/html"}


def page(*links: str, head: str = "", nofollow: Iterable[str] = ()) -> Page:
    """An HTML page linking `links` (and `nofollow`, marked rel="nofollow")."""
    anchors = "".join(f'<a href="{href}">{href}</a> ' for href in links)
    anchors += "".join(f'<a rel="nofollow" href="{href}">{href}</a> ' for href in nofollow)
    body = f"<!doctype html><html><head><title>t</title>{head}</head><body>{anchors}</body></html>"
    return Page(200, body.encode(), HTML)


def site(
    base: str,
    pages: Mapping[str, Route],
    *,
    listed: Iterable[str],
    robots: str = "User-agent: *\nDisallow: /private/\n",
) -> dict[str, Route]:
    """`pages`, a robots.txt naming /sitemap.xml, and that sitemap listing `listed` (paths)."""
    text = f"{robots}\nSitemap: {base}/sitemap.xml\n"
    return {
        "/robots.txt": Page(200, text.encode(), {"Content-Type": "text/plain"}),
        "/sitemap.xml": xml_page(urlset([url(f"{base}{path}") for path in listed])),
        **pages,
    }

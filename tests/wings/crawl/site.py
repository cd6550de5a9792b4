"""Small loopback sites for the crawl's tests, and readers of the reports a crawl gives.

A site's pages have their links written out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import Route
from tests.helpers import Audited, run_audit

HTML = {"Content-Type": "text/html"}
Report = dict[str, Any]


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


async def crawl(tmp_path: Path, target: str, **overrides: Any) -> Audited:
    """An audit of `target` with the crawl and the checks."""
    return await run_audit(tmp_path, target, no_check=False, crawl=True, **overrides)


def entry(audited: Audited, path: str) -> Report:
    """The urls[] entry whose URL ends with `path`."""
    found: list[Report] = [item for item in audited.report["urls"] if item["loc"].endswith(path)]
    assert len(found) == 1, (path, [item["loc"] for item in audited.report["urls"]])
    return found[0]


def codes_of(item: Report) -> list[str]:
    return [finding["code"] for finding in item["findings"]]


def coverage(audited: Audited) -> Report:
    found: Report = audited.report["summary"]["coverage"]
    return found

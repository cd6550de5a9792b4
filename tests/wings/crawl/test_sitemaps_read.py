"""Nothing is called missing from the sitemaps unless every sitemap was read whole.

A page the crawl read may be listed in a sitemap that answered an error that may pass, timed
out, or was cut short: it is not `coverage.not_in_sitemap`
(docs/explanation/rules.md#not-in-sitemap). A sitemap that is gone (404, 410) lists nothing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from auditor.codes import Code
from auditor.demo.documents import Page, sitemapindex, url, urlset, xml_page
from auditor.demo.server import Route, serve
from auditor.models import FoundBy, SitemapKind, SitemapRecord, finding
from auditor.wings.crawl.coverage import leaves_unread
from tests.helpers import Audited, run_audit
from tests.wings.crawl.site import page

XHTML = 'xmlns:xhtml="http://www.w3.org/1999/xhtml"'


def codes_at(audited: Audited, path: str) -> list[str]:
    found = [item for item in audited.report["urls"] if item["loc"].endswith(path)]
    assert len(found) == 1, path
    return [item["code"] for item in found[0]["findings"]]


def two_sitemaps(second: Route) -> Any:
    """An index of one.xml (/, /a) and `second`; the home page links /a and /b."""

    def routes(base: str) -> dict[str, Route]:
        text = f"User-agent: *\nDisallow: /private/\n\nSitemap: {base}/index.xml\n"
        return {
            "/robots.txt": Page(200, text.encode(), {"Content-Type": "text/plain"}),
            "/index.xml": xml_page(sitemapindex([f"{base}/one.xml", f"{base}/two.xml"])),
            "/one.xml": xml_page(urlset([url(f"{base}/"), url(f"{base}/a")])),
            "/two.xml": second,
            "/": page("/a", "/b"),
            "/a": page(),
            "/b": page(),
        }

    return routes


async def crawled(tmp_path: Path, routes: Any, **settings: Any) -> Audited:
    async with serve(routes) as served:
        return await run_audit(tmp_path, f"{served.base}/", crawl=True, retries=0, **settings)


@pytest.mark.parametrize(
    "second",
    [
        Page(500, b"down"),
        Page(503, b"busy"),
        Page(403, b"no"),
        xml_page("<urlset><url><loc>http://x/b</loc></url"),  # cut short: not well-formed
    ],
    ids=["500", "503", "403", "malformed"],
)
async def test_a_sitemap_not_read_whole_leaves_no_page_missing(
    tmp_path: Path, second: Page
) -> None:
    audited = await crawled(tmp_path, two_sitemaps(second))
    assert codes_at(audited, "/b") == []
    coverage = audited.report["summary"]["coverage"]
    assert coverage["sitemaps_read"] is False
    assert coverage["crawled_only"] == 1  # still counted, named nowhere
    assert Code.COVERAGE_NOT_IN_SITEMAP.value not in audited.report["summary"]["by_code"]


async def test_a_sitemap_that_is_gone_lists_nothing(tmp_path: Path) -> None:
    audited = await crawled(tmp_path, two_sitemaps(Page(404, b"gone")))
    assert codes_at(audited, "/b") == ["coverage.not_in_sitemap"]
    assert audited.report["summary"]["coverage"]["sitemaps_read"] is True


async def test_every_sitemap_read_names_the_missing_page(tmp_path: Path) -> None:
    def second(base: str) -> Page:
        return xml_page(urlset([url(f"{base}/a")]))

    routes = two_sitemaps(Page(200, b""))

    def with_second(base: str) -> dict[str, Route]:
        return {**routes(base), "/two.xml": second(base)}

    audited = await crawled(tmp_path, with_second)
    assert codes_at(audited, "/b") == ["coverage.not_in_sitemap"]
    assert codes_at(audited, "/a") == []


async def test_a_sitemap_that_times_out_leaves_no_page_missing(tmp_path: Path) -> None:
    async def slow(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(3)
        return web.Response(body=b"")

    audited = await crawled(tmp_path, two_sitemaps(slow), timeout_s=0.5)
    assert codes_at(audited, "/b") == []
    assert audited.report["summary"]["coverage"]["sitemaps_read"] is False


async def test_an_alternate_is_not_missing_while_a_sitemap_is_unread(tmp_path: Path) -> None:
    """--max-sitemaps 2: the index and one.xml are read; two.xml, listing /fr/, is not."""

    def routes(base: str) -> dict[str, Route]:
        links = f'<xhtml:link rel="alternate" hreflang="fr" href="{base}/fr/"/>'
        links += f'<xhtml:link rel="alternate" hreflang="en" href="{base}/"/>'
        one = urlset([url(f"{base}/", extra=links)]).replace("<urlset ", f"<urlset {XHTML} ")
        text = f"User-agent: *\nSitemap: {base}/index.xml\n"
        return {
            "/robots.txt": Page(200, text.encode(), {"Content-Type": "text/plain"}),
            "/index.xml": xml_page(sitemapindex([f"{base}/one.xml", f"{base}/two.xml"])),
            "/one.xml": xml_page(one),
            "/two.xml": xml_page(urlset([url(f"{base}/fr/")])),
            "/": page("/fr/"),
            "/fr/": page("/"),
        }

    capped = await crawled(tmp_path / "capped", routes, max_sitemaps=2)
    assert "coverage.not_in_sitemap" not in codes_at(capped, "/fr/")
    whole = await crawled(tmp_path / "whole", routes, max_sitemaps=1000)
    assert codes_at(whole, "/fr/") == []  # listed by two.xml


def test_which_documents_leave_entries_unread() -> None:
    def record(status: int | None, *codes: Code) -> SitemapRecord:
        found = tuple(finding(code, url="https://s.example/s.xml") for code in codes)
        where = "https://s.example/s.xml"
        return SitemapRecord(
            where, SitemapKind.URLSET, None, 0, FoundBy.ROBOTS, status, findings=found
        )

    assert not leaves_unread(record(200))
    read_all_the_same = (Code.SITEMAP_TOO_MANY_URLS, Code.SITEMAP_BLOCKED_BY_ROBOTS)
    assert not leaves_unread(record(200, *read_all_the_same))
    assert not leaves_unread(record(404, Code.SITEMAP_HTTP_ERROR))
    assert not leaves_unread(record(410, Code.SITEMAP_HTTP_ERROR))
    assert leaves_unread(record(500, Code.SITEMAP_HTTP_ERROR))
    assert leaves_unread(record(429, Code.SITEMAP_HTTP_ERROR))
    assert leaves_unread(record(None, Code.NET_TIMEOUT))
    assert leaves_unread(record(200, Code.SITEMAP_COMPRESSION_ERROR))
    assert leaves_unread(record(200, Code.INDEX_TOO_MANY_SITEMAPS))


def whole_site(base: str) -> dict[str, Route]:
    """Its sitemap, read whole, lists / only; the home page links /c too."""
    text = f"User-agent: *\nSitemap: {base}/sitemap.xml\n"
    return {
        "/robots.txt": Page(200, text.encode(), {"Content-Type": "text/plain"}),
        "/sitemap.xml": xml_page(urlset([url(f"{base}/")])),
        "/": page("/c"),
        "/c": page(),
    }


async def test_a_site_whose_sitemaps_were_read_still_names_its_missing_page(
    tmp_path: Path,
) -> None:
    """Two sites in one run: the one with a sitemap unread names nothing, the other does."""
    async with serve(two_sitemaps(Page(500, b"down"))) as broken, serve(whole_site) as whole:
        targets = (f"{broken.base}/", f"{whole.base}/")
        audited = await run_audit(tmp_path, *targets, crawl=True, retries=0)
    assert codes_at(audited, "/b") == []
    assert codes_at(audited, "/c") == ["coverage.not_in_sitemap"]
    assert audited.report["summary"]["coverage"]["sitemaps_read"] is False


async def test_an_unread_sitemap_on_another_host_may_list_any_page(tmp_path: Path) -> None:
    """robots.txt names an index on a host the crawl does not cover (a CDN): a child fails."""

    def cdn_routes(base: str) -> dict[str, Route]:
        index = xml_page(sitemapindex([f"{base}/child.xml"]))
        return {"/index.xml": index, "/child.xml": Page(503, b"busy")}

    async with serve(cdn_routes) as cdn:

        def routes(base: str) -> dict[str, Route]:
            text = f"User-agent: *\nSitemap: {base}/sitemap.xml\nSitemap: {cdn.base}/index.xml\n"
            return {**whole_site(base), "/robots.txt": Page(200, text.encode(), {})}

        async with serve(routes) as served:
            audited = await run_audit(tmp_path, f"{served.base}/", crawl=True, retries=0)
    assert codes_at(audited, "/c") == []

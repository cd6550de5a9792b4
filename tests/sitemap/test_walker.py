"""How the walker reads a tree: children as soon as they are listed, several at once, bounded."""

from __future__ import annotations

import asyncio
from pathlib import Path

from aiohttp import web

from auditor.demo.documents import SITEMAP_NS, sitemapindex, url, urlset, xml_page
from auditor.demo.server import Route, serve
from auditor.errors import ExitCode
from tests.helpers import run_audit


async def test_children_are_read_while_their_index_is_still_arriving(tmp_path: Path) -> None:
    child_requested = asyncio.Event()
    index_done_after_child: list[bool] = []

    async def index(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/xml"})
        await response.prepare(request)
        base = f"http://{request.host}"
        await response.write(f'<sitemapindex xmlns="{SITEMAP_NS}">'.encode())
        await response.write(f"<sitemap><loc>{base}/child.xml</loc></sitemap>".encode())
        try:  # the rest of the index waits until the first child has been asked for
            await asyncio.wait_for(child_requested.wait(), timeout=5)
            index_done_after_child.append(True)
        except TimeoutError:
            index_done_after_child.append(False)
        await response.write(b"</sitemapindex>")
        return response

    async def child(request: web.Request) -> web.StreamResponse:
        child_requested.set()
        return web.Response(text=urlset([url(f"http://{request.host}/page")]))

    async with serve(lambda base: {"/index.xml": index, "/child.xml": child}) as served:
        audited = await run_audit(tmp_path, f"{served.base}/index.xml")
    assert index_done_after_child == [True]
    assert audited.report["summary"]["urls"] == 1


async def test_several_sitemaps_at_once_but_no_more_than_the_limit(tmp_path: Path) -> None:
    in_flight, most = 0, 0

    async def slow_child(request: web.Request) -> web.StreamResponse:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await asyncio.sleep(0.1)
        in_flight -= 1
        return web.Response(text=urlset([url(f"http://{request.host}{request.path}/page")]))

    def routes(base: str) -> dict[str, Route]:
        children = [f"{base}/c{n}.xml" for n in range(12)]
        table: dict[str, Route] = {f"/c{n}.xml": slow_child for n in range(12)}
        table["/index.xml"] = xml_page(sitemapindex(children))
        return table

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/index.xml", sitemap_concurrency=3)
    assert most == 3
    assert audited.report["summary"]["sitemaps"] == 13
    assert audited.result.exit_code == ExitCode.OK


async def test_the_same_sitemap_named_twice_is_read_once(tmp_path: Path) -> None:
    async with serve(lambda base: {"/s.xml": xml_page(urlset([url(f"{base}/a")]))}) as served:
        audited = await run_audit(tmp_path, f"{served.base}/s.xml", f"{served.base}/s.xml")
        assert served.hits["/s.xml"] == 1
    assert audited.report["summary"]["sitemaps"] == 1
    assert audited.codes()["loc.duplicate"] == 0

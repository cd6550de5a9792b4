"""A fleet of loopback sites, each on its own 127.0.0.x address, and the tasks the tests give Dask.

Each site is a real aiohttp server (auditor.demo.server serves 127.0.0.1 only; these bind the
address given). One kind never answers: a socket that listens and never accepts. The killing
task is a module-level function, so that Dask pickles it by reference and every worker imports
it (LocalCluster workers inherit sys.path; remote ones get PYTHONPATH).
"""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass

from aiohttp import web

from auditor.demo.documents import Page, redirect, url, urlset, xml_page
from auditor.fleet.sites import FailureKind, FleetSite, SiteFailure, SiteReport
from auditor.fleet.task import audit_fleet_site

KILLER = "killer"  # the site whose task kills its worker process
OK_PAGE = Page(200, b"<!doctype html><title>ok</title><p>ok", {"Content-Type": "text/html"})


def healthy(base: str) -> dict[str, Page]:
    """robots.txt, a sitemap of three good pages: PASS."""
    pages = [f"{base}/a", f"{base}/b", f"{base}/c"]
    return {
        "/robots.txt": Page(200, f"User-agent: *\nSitemap: {base}/sitemap.xml\n".encode()),
        "/sitemap.xml": xml_page(urlset([url(loc) for loc in pages])),
        "/a": OK_PAGE,
        "/b": OK_PAGE,
        "/c": OK_PAGE,
    }


def broken_pages(base: str) -> dict[str, Page]:
    """A sitemap listing a page that is gone and one that fails: FAIL (errors)."""
    routes = healthy(base)
    routes["/b"] = Page(404, b"gone")
    routes["/c"] = Page(500, b"oops")
    return routes


def malformed(base: str) -> dict[str, Page]:
    """A sitemap that is not well-formed XML: FAIL (xml.malformed)."""
    routes = healthy(base)
    routes["/sitemap.xml"] = xml_page(urlset([url(f"{base}/a")])[:-20])
    return routes


def no_sitemap(base: str) -> dict[str, Page]:
    """A site without robots.txt nor any sitemap: FAIL (discovery.none_found)."""
    return {"/": OK_PAGE}


def redirects(base: str) -> dict[str, Page]:
    """Pages that redirect: warnings only, PASS at --fail-on error, FAIL at warning."""
    routes = healthy(base)
    routes["/b"] = redirect(301, f"{base}/a")
    return routes


RoutesFor = Callable[[str], dict[str, Page]]
KINDS: dict[str, RoutesFor] = {
    "healthy": healthy,
    "broken": broken_pages,
    "malformed": malformed,
    "none": no_sitemap,
    "redirects": redirects,
}


@dataclass(frozen=True, slots=True)
class Served:
    """A site up on its own address: its name, its kind, its root URL."""

    name: str
    kind: str
    base: str
    routes: dict[str, Page]  # what it answers, live (empty for a site that never answers)


@asynccontextmanager
async def serve_on(host: str, routes_for: RoutesFor) -> AsyncIterator[tuple[str, dict[str, Page]]]:
    """Serve the routes made for the root URL on `host`, a free port.

    Yields the root URL and the routes, live: a test may change what the site answers.
    """
    table: dict[str, Page] = {}

    async def answer(request: web.Request) -> web.StreamResponse:
        page = table.get(request.path)
        if page is None:
            return web.Response(status=404, text="not found")
        return web.Response(status=page.status, body=page.body, headers=page.headers)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, 0).start()
        port = runner.addresses[0][1]
        base = f"http://{host}:{port}"
        table.update(routes_for(base))
        yield base, table
    finally:
        await runner.cleanup()


@contextmanager
def silent_on(host: str) -> Iterator[str]:
    """A port on `host` that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as listener:
        listener.bind((host, 0))
        listener.listen(16)
        yield f"http://{host}:{listener.getsockname()[1]}"


@asynccontextmanager
async def fleet_of(kinds: list[tuple[str, str]], *, first: int = 2) -> AsyncIterator[list[Served]]:
    """Sites named and of the kinds given, on 127.0.0.<first>, <first + 1>, ...

    Kind "silent" never answers; "killer" is a healthy site whose task kills its worker.
    """
    served = []
    async with AsyncExitStack() as stack:
        for number, (name, kind) in enumerate(kinds, first):
            host = f"127.0.0.{number}"
            routes: dict[str, Page] = {}
            if kind == "silent":
                base = stack.enter_context(silent_on(host))
            else:
                maker = KINDS.get(kind, healthy)
                base, routes = await stack.enter_async_context(serve_on(host, maker))
            served.append(Served(name, kind, base, routes))
        yield served


def audit_or_die(site: FleetSite) -> SiteReport | SiteFailure:
    """The fleet's task, except that the killer site's kills its worker process at once."""
    if site.name == KILLER:
        os._exit(70)
    return audit_fleet_site(site)


def refuse(site: FleetSite) -> SiteReport | SiteFailure:
    """A task that fails every site: for the tests of the outputs."""
    return SiteFailure(FailureKind.UNUSABLE, f"{site.name} refused")

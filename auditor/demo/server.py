"""A loopback aiohttp server for route tables: the demo site, and the tests' sites.

Binds 127.0.0.1 on a free port (port 0); routes are built once the port, hence the root
URL, is known, so documents can hold absolute URLs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

from aiohttp import web

from auditor.demo.site import Page, demo_routes

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Route = Page | Handler
RoutesFor = Callable[[str], Mapping[str, Route]]  # root URL (no slash) -> path -> route
SHUTDOWN_TIMEOUT_S = 1.0


@dataclass(frozen=True, slots=True)
class Served:
    """A running loopback site: its root URL (no trailing slash) and requests per path."""

    base: str
    hits: Mapping[str, int]


@asynccontextmanager
async def serve(routes_for: RoutesFor) -> AsyncIterator[Served]:
    """Serve the routes on 127.0.0.1 until the block ends."""
    routes: dict[str, Route] = {}
    hits: dict[str, int] = {}

    async def answer(request: web.Request) -> web.StreamResponse:
        hits[request.path] = hits.get(request.path, 0) + 1
        route = routes.get(request.path_qs) or routes.get(request.path)
        if route is None:
            return web.Response(status=404, text="not found")
        if isinstance(route, Page):
            return web.Response(status=route.status, body=route.body, headers=route.headers)
        return await route(request)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    # A client that gave up (a timeout test) cancels its handler; shutdown never waits long.
    runner = web.AppRunner(
        app, access_log=None, handler_cancellation=True, shutdown_timeout=SHUTDOWN_TIMEOUT_S
    )
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        host, port = runner.addresses[0][:2]
        base = f"http://{host}:{port}"
        routes.update(routes_for(base))
        yield Served(base, hits)
    finally:
        await runner.cleanup()


@asynccontextmanager
async def serve_demo() -> AsyncIterator[str]:
    """The demo site; yields its root URL with a trailing slash (a site target)."""
    async with serve(demo_routes) as served:
        yield f"{served.base}/"

"""A loopback aiohttp server for route tables: the demo site, and the tests' sites.

Binds 127.0.0.1 on a free port (port 0); routes are built once the port, hence the root
URL, is known, so documents can hold absolute URLs.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from auditor.demo.documents import Page
from auditor.demo.site import demo_routes, docs_routes

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Route = Page | Handler
RoutesFor = Callable[[str], Mapping[str, Route]]  # root URL (no slash) -> path -> route
SHUTDOWN_TIMEOUT_S = 1.0
# The demo's https pages: a certificate for 127.0.0.1 from a CA made for the demo alone (its
# key is public: never trust this CA anywhere else). Both expire in the year 3000.
_TLS = Path(__file__).with_name("tls")
DEMO_CA = _TLS / "ca.pem"


@dataclass(frozen=True, slots=True)
class Served:
    """A running loopback site: its root URL (no trailing slash) and requests per path."""

    base: str
    hits: Mapping[str, int]


async def _page(request: web.Request, page: Page) -> web.StreamResponse:
    if page.delay_s:
        await asyncio.sleep(page.delay_s)
    if page.raw is not None and request.transport is not None:
        request.transport.write(page.raw)
        request.transport.close()
    return web.Response(status=page.status, body=page.body, headers=page.headers)


@asynccontextmanager
async def serve(
    routes_for: RoutesFor,
    *,
    tls: tuple[socket.socket, ssl.SSLContext] | None = None,
    bound: socket.socket | None = None,
) -> AsyncIterator[Served]:
    """Serve the routes on 127.0.0.1 until the block ends; also over `tls` (a bound socket).

    `bound`: a socket bound beforehand, for routes built for its URL before the server starts.
    """
    routes: dict[str, Route] = {}
    hits: dict[str, int] = {}

    async def answer(request: web.Request) -> web.StreamResponse:
        hits[request.path] = hits.get(request.path, 0) + 1
        route = routes.get(request.path_qs) or routes.get(request.path)
        if route is None:
            return web.Response(status=404, text="not found")
        if isinstance(route, Page):
            return await _page(request, route)
        return await route(request)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    # A client that gave up (a timeout test) cancels its handler; shutdown never waits long.
    runner = web.AppRunner(
        app, access_log=None, handler_cancellation=True, shutdown_timeout=SHUTDOWN_TIMEOUT_S
    )
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0) if bound is None else web.SockSite(runner, bound)
        await site.start()
        if tls is not None:
            await web.SockSite(runner, tls[0], ssl_context=tls[1]).start()
        host, port = runner.addresses[0][:2]
        base = f"http://{host}:{port}"
        routes.update(routes_for(base))
        yield Served(base, hits)
    finally:
        await runner.cleanup()


@asynccontextmanager
async def serve_demo() -> AsyncIterator[tuple[str, str]]:
    """The demo's two sites, as site targets (http).

    The shop, over http and https; its docs on a port of their own (no robots.txt: probed).
    """
    context = await asyncio.to_thread(_demo_tls_context)
    with socket.socket() as tls_socket:
        tls_socket.bind(("127.0.0.1", 0))
        tls_base = f"https://127.0.0.1:{tls_socket.getsockname()[1]}"
        routes = lambda base: demo_routes(base, tls_base)  # noqa: E731
        async with serve(routes, tls=(tls_socket, context)) as shop, serve(docs_routes) as docs:
            yield f"{shop.base}/", f"{docs.base}/"


def _demo_tls_context() -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(_TLS / "server.pem", _TLS / "server.key")
    return context

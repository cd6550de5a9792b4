"""A loopback aiohttp server for route tables: the demo site, the tests' sites, `--serve DIR`.

Binds 127.0.0.1 on a free port (port 0); routes are built once the port, hence the root
URL, is known, so documents can hold absolute URLs.

`--serve DIR` answers a built site's folder as GitHub Pages, Netlify and `python -m http.server`
answer a generator's output (Hugo's `public/`, MkDocs' `site/`): a file as it is (GET and HEAD;
aiohttp's FileResponse sends its type, validators and ranges, and a `.gz` beside a file as that
file's gzip encoding when the client accepts it), a folder by its `index.html` (a folder asked
without its slash is sent there, 301), anything else 404 with the site's own `404.html` when it
has one. Nothing outside the folder is ever served: a path that leaves it (`..`, a link
pointing out) is missing.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

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
    fallback: Handler | None = None,
) -> AsyncIterator[Served]:
    """Serve the routes on 127.0.0.1 until the block ends; also over `tls` (a bound socket).

    `bound`: a socket bound beforehand, for routes built for its URL before the server starts.
    `fallback`: what answers a path no route names (a built folder, auditor.demo.folder_site).
    """
    routes: dict[str, Route] = {}
    hits: dict[str, int] = {}

    async def answer(request: web.Request) -> web.StreamResponse:
        hits[request.path] = hits.get(request.path, 0) + 1
        route = routes.get(request.path_qs) or routes.get(request.path)
        if route is None and fallback is not None:
            return await fallback(request)
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


NOT_FOUND_PAGE = "404.html"  # Hugo, MkDocs, Jekyll and Eleventy all write it at the root
INDEX = "index.html"


def folder_handler(top: Path) -> Handler:
    """The handler answering every request from the files under `top` (a resolved path)."""

    async def answer(request: web.Request) -> web.StreamResponse:
        if request.method not in ("GET", "HEAD"):
            return web.Response(status=405, headers={"Allow": "GET, HEAD"})
        found = await asyncio.to_thread(_file_for, top, request.path)  # it asks the disk
        if isinstance(found, str):  # a folder asked without its slash
            return web.Response(status=301, headers={"Location": found})
        if found is not None:
            return web.FileResponse(found)
        missing = top / NOT_FOUND_PAGE
        if await asyncio.to_thread(missing.is_file):
            return web.FileResponse(missing, status=404)
        return web.Response(status=404, text="not found")

    return answer


def _file_for(top: Path, path: str) -> Path | str | None:
    """The file a path names, a folder's path with its slash (to redirect to), or None."""
    relative = unquote(path).lstrip("/")
    if "\0" in relative:
        return None
    candidate = (top / relative).resolve()
    if not candidate.is_relative_to(top):  # `..`, or a link that points out of the folder
        return None
    if candidate.is_dir():
        if not path.endswith("/"):
            return path + "/"
        candidate = candidate / INDEX
    return candidate if candidate.is_file() else None


@asynccontextmanager
async def serve_folder(root: Path) -> AsyncIterator[str]:
    """Serve `root` on 127.0.0.1 (a free port) until the block ends; its root URL, no slash."""
    top = await asyncio.to_thread(root.resolve)  # it asks the disk
    async with serve(lambda _base: {}, fallback=folder_handler(top)) as served:
        yield served.base

"""Serve a synthetic site of N pages on 127.0.0.1 (aiohttp), for the URL-check benchmark.

    python benchmarks/serve_pages.py --urls N [--per-sitemap N] [--port N]

The site: /robots.txt names /sitemap_index.xml, which lists /sitemaps/sitemap-K.xml (at most
--per-sitemap URLs each, plain XML), which list http://127.0.0.1:PORT/p/<i> for i in [0, N).
Every /p/<i> answers 200 with a small HTML page (about 200 bytes; HEAD too). The sitemaps are
built once the port is known, before the port is printed, so that no request pays for them.
/_stats (JSON) counts the page requests by method, and the connections they came on, since the
last /_stats?reset=1.

Binds 127.0.0.1 only (port 0, the default, picks a free one) and prints the port on stdout once
it accepts connections; runs until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import weakref
from collections import Counter
from collections.abc import Callable

from aiohttp import web

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
_PAGE_HEAD = b"<!doctype html>\n<html lang=en><head><meta charset=utf-8><title>Benchmark page "
_PAGE_TAIL = (
    b"</title></head>\n<body><h1>A page</h1><p>Small, static, and always 200 OK: the check "
    b"stage is what is measured here.</p></body></html>\n"
)


async def run_on_loopback(
    app: web.Application, port: int, *, name: str, on_bound: Callable[[int], None] | None = None
) -> None:
    """Serve `app` on 127.0.0.1:`port`, print the port bound, run until SIGTERM or SIGINT.

    `on_bound` gets the port before it is printed (a site whose documents name their URL).
    """
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        try:
            await web.TCPSite(runner, "127.0.0.1", port).start()
        except OSError as exc:  # the port is taken: say so in one line, exit 1
            raise SystemExit(f"{name}: {exc}") from None
        bound: int = runner.addresses[0][1]
        if on_bound is not None:
            on_bound(bound)
        print(bound, flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
    finally:
        await runner.cleanup()


def page_url(base: str, n: int) -> str:
    """The n-th page's URL: what the sitemaps list, and what the bare loop requests."""
    return f"{base}/p/{n}"


def page_body(n: int) -> bytes:
    """The n-th page: about 200 bytes of HTML."""
    return _PAGE_HEAD + str(n).encode() + _PAGE_TAIL


def build_site(base: str, urls: int, per_sitemap: int) -> dict[str, tuple[bytes, str]]:
    """Path -> (body, content type) for robots.txt, the index and its children."""
    site: dict[str, tuple[bytes, str]] = {}
    children = []
    for k, start in enumerate(range(0, urls, per_sitemap), 1):
        path = f"/sitemaps/sitemap-{k}.xml"
        stop = min(urls, start + per_sitemap)
        entries = "".join(
            f"<url><loc>{page_url(base, n)}</loc></url>\n" for n in range(start, stop)
        )
        body = f'{XML_HEAD}<urlset xmlns="{NS}">\n{entries}</urlset>\n'
        site[path] = (body.encode(), "application/xml")
        children.append(f"<sitemap><loc>{base}{path}</loc></sitemap>\n")
    index = f'{XML_HEAD}<sitemapindex xmlns="{NS}">\n{"".join(children)}</sitemapindex>\n'
    site["/sitemap_index.xml"] = (index.encode(), "application/xml")
    robots = f"User-agent: *\nAllow: /\n\nSitemap: {base}/sitemap_index.xml\n"
    site["/robots.txt"] = (robots.encode(), "text/plain")
    return site


class Site:
    """The request handlers, over the documents built by build_site()."""

    def __init__(self) -> None:
        self.documents: dict[str, tuple[bytes, str]] = {}
        self.requests: Counter[str] = Counter()
        self._seen: weakref.WeakSet[object] = weakref.WeakSet()  # transports since the reset

    async def page(self, request: web.Request) -> web.Response:
        self.requests[request.method] += 1
        if request.transport is not None and request.transport not in self._seen:
            self._seen.add(request.transport)
            self.requests["connections"] += 1
        number = request.match_info["n"]
        if not number.isdigit():
            raise web.HTTPNotFound
        return web.Response(body=page_body(int(number)), content_type="text/html")

    async def document(self, request: web.Request) -> web.Response:
        found = self.documents.get(request.path)
        if found is None:
            raise web.HTTPNotFound
        body, content_type = found
        return web.Response(body=body, content_type=content_type)

    async def stats(self, request: web.Request) -> web.Response:
        answer = web.json_response(dict(self.requests))
        if "reset" in request.query:
            self.requests.clear()
            self._seen = weakref.WeakSet()
        return answer


async def serve(urls: int, per_sitemap: int, port: int) -> None:
    site = Site()
    app = web.Application()
    app.router.add_get("/p/{n}", site.page)
    app.router.add_get("/_stats", site.stats)
    app.router.add_get("/{tail:.*}", site.document)

    def build(bound: int) -> None:
        site.documents = build_site(f"http://127.0.0.1:{bound}", urls, per_sitemap)

    await run_on_loopback(app, port, name="serve_pages", on_bound=build)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--urls", type=int, required=True)
    parser.add_argument("--per-sitemap", type=int, default=50_000)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.urls < 1 or not 1 <= args.per_sitemap <= 50_000:
        parser.error("need --urls >= 1 and 1 <= --per-sitemap <= 50,000")
    asyncio.run(serve(args.urls, args.per_sitemap, args.port))


if __name__ == "__main__":
    main()

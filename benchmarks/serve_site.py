"""The suite's fallback server (aiohttp), when nginx is not installed: the same site as nginx.conf.

    python benchmarks/serve_site.py --log FILE DIR:PORT [DIR:PORT ...]

Serves each tree directory (made by site_gen.py) on 127.0.0.1:PORT with the routes of
site_server.NGINX_SITE: /p/N 200, /e404/N, /e500/N, redirect chains, loops, the files of the tree,
and another robots.txt to the Host `localhost`. Appends "METHOD STATUS" per request to --log (the
nginx access log format the suite reads). Prints "ready" once every port accepts connections;
runs until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import signal
from pathlib import Path
from typing import TextIO

from aiohttp import web
from site_gen import OFF_HOST

_PAGE = (
    "<!doctype html>\n<html lang=en><head><meta charset=utf-8><title>Page {n}</title></head>\n"
    "<body><h1>A page</h1><p>Small, static, and 200 OK.</p></body></html>\n"
)
_REDIRECT = re.compile(r"/r([123])([pt])/(\d+)")
_LOOP = re.compile(r"/loop/([ab])/(\d+)")
_TYPES = {".gz": "application/gzip", ".xml": "application/xml", ".txt": "text/plain"}


def route(path: str) -> tuple[int, str | None]:
    """(status, Location) for a dynamic path; (0, None) for a file of the tree. Pure."""
    parts = path.split("/")
    if len(parts) == 3 and parts[2].isdigit():
        match parts[1]:
            case "p":
                return 200, None
            case "e404":
                return 404, None
            case "e500":
                return 500, None
    if found := _REDIRECT.fullmatch(path):
        hops, kind, n = int(found[1]), found[2], found[3]
        target = f"/p/{n}" if hops == 1 else f"/r{hops - 1}{kind}/{n}"
        return (301 if kind == "p" else 302), target
    if found := _LOOP.fullmatch(path):
        return 302, f"/loop/{'b' if found[1] == 'a' else 'a'}/{found[2]}"
    return 0, None


class Site:
    """One tree's handler."""

    def __init__(self, root: Path, log: TextIO) -> None:
        self.root = root
        self.log = log

    async def handle(self, request: web.Request) -> web.StreamResponse:
        response = self.answer(request)
        self.log.write(f"{request.method} {response.status}\n")
        return response

    def answer(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        status, location = route(path)
        if status == 200:
            return web.Response(
                text=_PAGE.format(n=path.rsplit("/", 1)[1]), content_type="text/html"
            )
        if location is not None:
            return web.Response(status=status, headers={"Location": location})
        if status:
            return web.Response(status=status, text=f"{status}\n")
        if path == "/robots.txt" and request.host.split(":")[0] == OFF_HOST:
            path = "/robots-other.txt"
        file = (self.root / path.lstrip("/")).resolve()
        if not file.is_relative_to(self.root) or not file.is_file():
            return web.Response(status=404, text="404\n")
        content_type = _TYPES.get(file.suffix, "application/octet-stream")
        # As a static server does: a .gz file is application/gzip, no Content-Encoding.
        return web.FileResponse(file, headers={"Content-Type": content_type})


async def serve(trees: list[tuple[Path, int]], log_path: Path) -> None:
    runners = []
    with log_path.open("a", buffering=1 << 16) as log:
        for root, port in trees:
            app = web.Application()
            app.router.add_route("*", "/{tail:.*}", Site(root.resolve(), log).handle)
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", port).start()
            runners.append(runner)
        print("ready", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        while not stop.is_set():  # flush the log as nginx does (buffer, flush)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.1)
            log.flush()
        for runner in runners:
            await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("trees", nargs="+", help="DIR:PORT")
    args = parser.parse_args()
    trees = [(Path(tree.rsplit(":", 1)[0]), int(tree.rsplit(":", 1)[1])) for tree in args.trees]
    asyncio.run(serve(trees, args.log))


if __name__ == "__main__":
    main()

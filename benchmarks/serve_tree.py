"""Serve a directory as static files on 127.0.0.1 (aiohttp), for benchmarks.

    python benchmarks/serve_tree.py DIR [--port N]

Binds 127.0.0.1 only (port 0, the default, picks a free one) and prints the port on stdout once
it accepts connections; runs until SIGTERM or SIGINT. `.xml.gz` files go out as
application/gzip with no Content-Encoding, like a plain static web server.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from collections.abc import Callable
from pathlib import Path

from aiohttp import web


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


async def serve(directory: Path, port: int) -> None:
    app = web.Application()
    app.router.add_static("/", directory)
    await run_on_loopback(app, port, name="serve_tree")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    asyncio.run(serve(args.directory.resolve(), args.port))


if __name__ == "__main__":
    main()

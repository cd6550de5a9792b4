"""A loopback site whose routes misbehave on purpose, a black-hole host, and a measured CLI run.

Each fault route answers the same way whether it is read as a sitemap or checked as a URL.
Routes that break HTTP framing write to aiohttp's transport themselves and never let aiohttp
answer. `run_cli` runs `sitemap-audit` in a fresh process through a small launcher, so that
its peak RSS is its own (a child forked from pytest starts with pytest's pages counted).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gzip
import json
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp.resolver
from aiohttp import web
from aiohttp.abc import AbstractResolver, ResolveResult

from auditor.demo.documents import SITEMAP_NS, Page, redirect, sitemapindex, url, urlset, xml_page
from auditor.demo.server import Handler, Route

ROOT = Path(__file__).parent.parent
RING = 10_000  # redirects in the ring
CHILDREN = 50_000  # children of the index whose host never answers
TWO_GIB = 2 << 30
_MIB = b" " * (1 << 20)
_HEAD = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}">'.encode()


def document(base: str, name: str) -> bytes:
    """A small valid urlset of two URLs, `/fault/<name>-listed/1` and `2` (in its folder)."""
    return urlset([url(f"{base}/fault/{name}-listed/{n}") for n in (1, 2)]).encode()


def _head(*lines: str) -> bytes:
    return ("\r\n".join(["HTTP/1.1 200 OK", *lines]) + "\r\n\r\n").encode()


def _transport(request: web.Request) -> asyncio.Transport:
    transport = request.transport
    assert transport is not None
    return transport


def _reset(transport: asyncio.Transport) -> None:
    """Close with RST (SO_LINGER 0), not FIN."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    transport.abort()


async def _drain() -> None:
    """Let what was written go out before the connection is cut."""
    await asyncio.sleep(0.05)


def reset_mid_headers(base: str) -> Handler:
    async def handler(request: web.Request) -> web.StreamResponse:
        transport = _transport(request)
        transport.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Le")
        await _drain()
        _reset(transport)
        return web.Response()  # never sent: the connection is gone

    return handler


def reset_mid_body(base: str) -> Handler:
    async def handler(request: web.Request) -> web.StreamResponse:
        transport = _transport(request)
        body = document(base, "reset_mid_body")
        transport.write(_head("Content-Type: text/xml", "Content-Length: 100000"))
        transport.write(body[: len(body) - 20])  # both entries, not the end of the document
        await _drain()
        _reset(transport)
        return web.Response()

    return handler


def slow_headers(base: str) -> Handler:
    """The head one byte per second (each silence shorter than any idle timeout)."""

    async def handler(request: web.Request) -> web.StreamResponse:
        transport = _transport(request)
        head = _head("Content-Type: text/xml", "X-Padding: " + "p" * 100)
        for byte in head:
            if transport.is_closing():
                break
            transport.write(bytes([byte]))
            await asyncio.sleep(1.0)
        transport.close()
        return web.Response()

    return handler


def slow_body(base: str) -> Handler:
    """A whole head at once, then the body one byte per second (under any floor)."""

    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/html"})
        await response.prepare(request)
        for byte in document(base, "slow_body"):
            await response.write(bytes([byte]))
            await asyncio.sleep(1.0)
        return response

    return handler


def endless_header(base: str) -> Handler:
    """One header line that never ends, sent as fast as the client takes it."""

    async def handler(request: web.Request) -> web.StreamResponse:
        transport = _transport(request)
        transport.write(b"HTTP/1.1 200 OK\r\nX-Endless: ")
        while not transport.is_closing():
            transport.write(b"a" * 65536)
            await asyncio.sleep(0.001)
        return web.Response()

    return handler


def endless_headers(base: str) -> Handler:
    """Headers that never end: one short line after another."""

    async def handler(request: web.Request) -> web.StreamResponse:
        transport = _transport(request)
        transport.write(b"HTTP/1.1 200 OK\r\n")
        n = 0
        while not transport.is_closing():
            transport.write(b"".join(b"X-%d: v\r\n" % (n + i) for i in range(1000)))
            n += 1000
            await asyncio.sleep(0.001)
        return web.Response()

    return handler


def longer_than_length(base: str) -> Handler:
    """A whole document as Content-Length says, then a smuggled second answer on the same
    connection, which stays open: a client that reused it would read the smuggled one."""

    async def handler(request: web.Request) -> web.StreamResponse:
        transport = _transport(request)
        body = document(base, "longer_than_length")
        smuggled = _head("Content-Length: 5", "Content-Type: text/xml") + b"EVIL!"
        transport.write(_head("Content-Type: text/xml", f"Content-Length: {len(body)}"))
        transport.write(body + smuggled * 20)
        await asyncio.sleep(30)  # the connection stays open; aiohttp cancels this at shutdown
        return web.Response()

    return handler


def shorter_than_length(base: str) -> Handler:
    async def handler(request: web.Request) -> web.StreamResponse:
        transport = _transport(request)
        body = document(base, "shorter_than_length")
        transport.write(_head("Content-Type: text/xml", f"Content-Length: {len(body) + 1000}"))
        transport.write(body)
        await _drain()
        transport.close()
        return web.Response()

    return handler


def broken_chunked(base: str) -> Handler:
    async def handler(request: web.Request) -> web.StreamResponse:
        transport = _transport(request)
        body = document(base, "broken_chunked")
        transport.write(_head("Content-Type: text/xml", "Transfer-Encoding: chunked"))
        transport.write(b"%x\r\n%s\r\nzz-not-a-size\r\n" % (len(body) - 20, body[:-20]))
        await _drain()
        transport.close()
        return web.Response()

    return handler


def broken_chunked_late(base: str) -> Handler:
    """A good first chunk, then, once the client has read it, a chunk size that is not one:
    the break comes after the answer's head, in the body's second piece."""

    async def handler(request: web.Request) -> web.StreamResponse:
        transport = _transport(request)
        body = document(base, "broken_chunked_late")
        transport.write(_head("Content-Type: text/xml", "Transfer-Encoding: chunked"))
        transport.write(b"%x\r\n%s\r\n" % (len(body) - 20, body[:-20]))
        await asyncio.sleep(0.3)
        transport.write(b"zz-not-a-size\r\n")
        await _drain()
        transport.close()
        return web.Response()

    return handler


def gzip_then_junk(base: str) -> Handler:
    """A valid gzip member, then bytes that are not gzip."""
    body = gzip.compress(document(base, "gzip_then_junk")) + b"\x1f\x8bthis is not gzip" * 10

    async def handler(request: web.Request) -> web.StreamResponse:
        return web.Response(body=body, headers={"Content-Type": "application/x-gzip"})

    return handler


def _streaming(opening: bytes, *, length: int | None) -> Handler:
    """`opening`, then spaces, 1 MiB at a time, up to `length` bytes (None: forever)."""

    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/xml"})
        response.content_length = length
        await response.prepare(request)
        with contextlib.suppress(ConnectionError):  # the client read what it wanted
            await response.write(opening)
            sent = len(opening)
            while length is None or sent + len(_MIB) <= length:
                await response.write(_MIB)
                sent += len(_MIB)
        return response

    return handler


def two_gigabytes(base: str) -> Handler:
    """A 2 GiB body, declared and streamed (spaces inside <urlset>), never held."""
    return _streaming(_HEAD, length=TWO_GIB)


def endless_comment(base: str) -> Handler:
    """A comment that never ends: expat 2.5 would scan it again at each chunk."""
    return _streaming(_HEAD + b"<!--", length=None)


def private_by_name(base: str) -> Handler:
    """A redirect to a name that the child's test resolver answers with cloud metadata."""
    port = base.rsplit(":", 1)[1]
    page = redirect(302, f"http://metadata.test:{port}/latest/meta-data/")

    async def handler(request: web.Request) -> web.StreamResponse:
        return web.Response(status=page.status, headers=page.headers)

    return handler


def ring(base: str) -> Handler:
    """/ring?n=0 -> /ring?n=1 -> ... -> /ring?n=9999 -> /ring?n=0."""

    async def handler(request: web.Request) -> web.StreamResponse:
        n = int(request.query.get("n", "0"))
        return web.Response(status=302, headers={"Location": f"/ring?n={(n + 1) % RING}"})

    return handler


FAULTS: dict[str, Callable[[str], Handler]] = {
    "reset_mid_headers": reset_mid_headers,
    "reset_mid_body": reset_mid_body,
    "slow_headers": slow_headers,
    "slow_body": slow_body,
    "endless_header": endless_header,
    "endless_headers": endless_headers,
    "longer_than_length": longer_than_length,
    "shorter_than_length": shorter_than_length,
    "broken_chunked": broken_chunked,
    "broken_chunked_late": broken_chunked_late,
    "gzip_then_junk": gzip_then_junk,
    "two_gigabytes": two_gigabytes,
    "endless_comment": endless_comment,
    "private_by_name": private_by_name,
    "ring": ring,
}


def healthy_sitemap(base: str, first: str, pages: int) -> bytes:
    """A sitemap listing `first` (a faulty URL), then `pages` healthy ones."""
    return urlset([url(first)] + [url(f"{base}/ok/{n}") for n in range(pages)]).encode()


def fault_site(
    base: str, *, fault: str, checked: str, dead: str | None, pages: int
) -> dict[str, Route]:
    """The routes: `/fault/<fault>`, a healthy sitemap listing `checked` first, healthy pages,
    the ring, and with `dead` an index of CHILDREN children on that host."""
    routes: dict[str, Route] = {f"/fault/{fault}": FAULTS[fault](base)}
    routes["/ring"] = ring(base)
    routes["/healthy.xml"] = xml_page(healthy_sitemap(base, checked, pages).decode())
    routes["/after.xml"] = xml_page(urlset([url(f"{base}/ok/after")]))
    fine = Page(200, b"<html>fine</html>", {"Content-Type": "text/html"})
    for n in range(pages):
        routes[f"/ok/{n}"] = fine
    routes["/ok/after"] = fine
    for n in (1, 2):  # what the fault documents list
        routes[f"/fault/{fault}-listed/{n}"] = fine
    if dead is not None:
        children = [f"{dead}/c/{n}.xml" for n in range(CHILDREN)]
        routes["/index50k.xml"] = xml_page(sitemapindex(children))
    return routes


@dataclass
class BlackHole:
    """A host that accepts connections and never answers."""

    base: str
    connections: int = 0


@asynccontextmanager
async def serve_black_hole() -> AsyncIterator[BlackHole]:
    hole = BlackHole("")
    held: list[asyncio.StreamWriter] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        hole.connections += 1
        held.append(writer)  # never answered; closed when the host goes

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    hole.base = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    try:
        yield hole
    finally:
        server.close()
        for writer in held:
            writer.close()


# --- a CLI run in a fresh process, measured ------------------------------------------------


@dataclass(frozen=True)
class CliRun:
    """One `sitemap-audit` process: exit code, wall time, peak RSS (its own), stderr."""

    exit_code: int
    wall_s: float
    peak_rss_mb: float
    stderr: str


# The launcher: a small Python that spawns the auditor and reports the auditor's own rusage.
_LAUNCHER = """
import json, os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
started = time.monotonic()
pid = os.posix_spawn(argv[0], argv, os.environ)
_, status, usage = os.wait4(pid, 0)
wall = time.monotonic() - started
with open(out, "w") as f:
    json.dump({"status": os.waitstatus_to_exitcode(status), "wall_s": wall,
               "maxrss_kb": usage.ru_maxrss}, f)
"""
# Names the auditor's resolver answers itself in the child (`NAME=ADDRESS,...`): DNS as an
# attacker sets it up, with no DNS; every other name goes to the real resolver.
NAMES_ENV = "SITEMAP_AUDIT_TEST_NAMES"


async def run_cli(
    argv: list[str], *, tmp_path: Path, limit_s: float, names: str | None = None
) -> CliRun:
    """Run the auditor with `argv`; kill it (and fail) past `limit_s`."""
    if names is None:
        command = [sys.executable, "-m", "auditor", *argv]
    else:
        command = [sys.executable, "-c", "import tests.fault_server as f; f.cli_with_names()"]
        command += argv
    measured = tmp_path / "rusage.json"
    stderr = tmp_path / "stderr.txt"
    env = {**os.environ, NAMES_ENV: names or ""}
    with stderr.open("wb") as err:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", _LAUNCHER, str(measured), *command,
            cwd=ROOT, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=err,
            start_new_session=True,
        )  # fmt: skip
        try:
            await asyncio.wait_for(process.wait(), timeout=limit_s)
        except TimeoutError:
            os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
            raise AssertionError(f"{argv} still running after {limit_s} s") from None
    usage = json.loads(measured.read_text())
    return CliRun(usage["status"], usage["wall_s"], usage["maxrss_kb"] / 1024, stderr.read_text())


class _NamedResolver(AbstractResolver):
    def __init__(self, names: dict[str, str], inner: AbstractResolver) -> None:
        self._names = names
        self._inner = inner

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        address = self._names.get(host)
        if address is None:
            return await self._inner.resolve(host, port, family)
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [
            ResolveResult(
                hostname=host, host=address, port=port, family=family, proto=0,
                flags=socket.AI_NUMERICHOST,
            )
        ]  # fmt: skip

    async def close(self) -> None:
        await self._inner.close()


def cli_with_names() -> None:
    """The CLI, with the names of NAMES_ENV answered by a resolver of the test (in the child),
    in its checker processes too.
    """
    from auditor.cli import main as cli  # noqa: PLC0415

    _answer_names()
    sys.argv[0] = "sitemap-audit"
    sys.exit(cli.main(sys.argv[1:]))


def _answer_names() -> None:
    import auditor.net.client  # noqa: PLC0415
    import auditor.net.curl_client  # noqa: PLC0415

    pairs = (item.partition("=") for item in os.environ[NAMES_ENV].split(",") if item)
    names = {name: address for name, _, address in pairs}
    default = aiohttp.resolver.DefaultResolver
    # auditor.net.client makes its inner resolver from this name: the test's answers come first.
    auditor.net.client.__dict__["DefaultResolver"] = lambda: _NamedResolver(names, default())
    # The curl transport's seam (CURLOPT_RESOLVE), in the module auditor.http_stack makes it of.
    curl = auditor.net.curl_client.CurlTransport

    def answer(host: str) -> tuple[str, ...] | None:
        return (names[host],) if host in names else None

    auditor.net.curl_client.__dict__["CurlTransport"] = functools.partial(curl, resolve=answer)

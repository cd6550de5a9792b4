"""The libcurl transport on its own, against real loopback servers: what only it does.

The check path's tests run on it too (the `engine` fixture); these cover its edges: handles
given back when a caller is cancelled, nothing left running after it closes, the body cap on
decoded bytes, the head's bounds, proxies from the environment, pycurl missing.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import sys
import threading
from pathlib import Path

import pytest
from aiohttp import web

from auditor.codes import Code
from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import Handler, Route, serve
from auditor.errors import ExitCode, FetchError
from auditor.net.address_guard import Reach
from auditor.net.curl_client import CurlTransport
from auditor.net.transport import ConnectionPolicy, Timeouts

TIMEOUTS = Timeouts(total_s=5.0, idle_s=None)
ROOT = Path(__file__).parent.parent.parent


def curl_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "curl-multi"]


def open_fds() -> int:
    return sum(1 for _ in Path("/proc/self/fd").iterdir())


async def stalled(request: web.Request) -> web.StreamResponse:
    await asyncio.sleep(30)  # cancelled when the server shuts down
    return web.Response(text="late")


async def test_a_cancelled_request_gives_its_handle_back_and_closing_leaves_nothing() -> None:
    fds = open_fds()
    async with serve(lambda base: {"/slow": stalled, "/ok": Page(200, b"ok")}) as served:
        transport = CurlTransport(ConnectionPolicy("test"))
        async with transport:
            slow = [transport.open(f"{served.base}/slow", timeouts=TIMEOUTS) for _ in range(8)]
            done, pending = await asyncio.wait(
                [asyncio.ensure_future(s) for s in slow], timeout=0.3
            )
            assert (len(done), len(pending)) == (0, 8)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            answers = await asyncio.gather(
                *(transport.open(f"{served.base}/ok", timeouts=TIMEOUTS) for _ in range(16))
            )
            assert [answer.status for answer in answers] == [200] * 16
            assert [await answer.read() for answer in answers] == [b"ok"] * 16
            assert len(curl_threads()) == 1
        # Stopped with transfers still stalled on the server: every one removed, every
        # connection closed, the thread gone.
        assert curl_threads() == []
    assert open_fds() == fds


async def test_every_request_is_taken_whether_the_thread_sleeps_or_is_busy() -> None:
    """The loop writes a wake-up only while libcurl's thread sleeps: none may be lost.

    One at a time, the thread has nothing left to do between requests (it sleeps with no
    timeout: a lost wake-up would hang); beside a stalled transfer, it sleeps on libcurl's
    timer (a lost one would cost seconds a request). 300 of each end well inside the deadline.
    """
    pages: dict[str, Route] = {"/slow": stalled, "/ok": Page(200, b"ok")}
    async with (
        serve(lambda base: pages) as served,
        CurlTransport(ConnectionPolicy("test")) as transport,
        asyncio.timeout(30),
    ):
        for stalling in (False, True):
            slow = None
            if stalling:
                slow = asyncio.ensure_future(
                    transport.open(f"{served.base}/slow", timeouts=Timeouts(60.0, None))
                )
                await asyncio.sleep(0.1)
            for _ in range(300):
                answer = await transport.open(f"{served.base}/ok", timeouts=TIMEOUTS)
                assert answer.status == 200
            if slow is not None:
                slow.cancel()
                await asyncio.gather(slow, return_exceptions=True)


async def test_closing_with_requests_in_flight_ends_them() -> None:
    async with serve(lambda base: {"/slow": stalled}) as served:
        transport = CurlTransport(ConnectionPolicy("test"))
        async with transport:
            task = asyncio.ensure_future(transport.open(f"{served.base}/slow", timeouts=TIMEOUTS))
            await asyncio.sleep(0.2)
        with pytest.raises(asyncio.CancelledError):
            await task
    assert curl_threads() == []


async def test_the_body_cap_counts_decoded_bytes() -> None:
    bomb = gzip.compress(b"\0" * 10_000_000)  # about 10 KB on the wire
    seen: list[str] = []

    async def gzipped(request: web.Request) -> web.StreamResponse:
        seen.append(request.headers.get("Accept-Encoding", ""))
        return web.Response(body=bomb, headers={"Content-Encoding": "gzip"})

    async with (
        serve(lambda base: {"/bomb": gzipped}) as served,
        CurlTransport(ConnectionPolicy("test")) as transport,
    ):
        answer = await transport.open(f"{served.base}/bomb", timeouts=TIMEOUTS, max_body=65536)
        body = await answer.read()
    assert (answer.status, len(body), set(body), answer.body_encoding) == (200, 65536, {0}, None)
    assert seen == ["gzip, deflate, br"]


def raw_answer(data: bytes) -> Handler:
    async def handler(request: web.Request) -> web.StreamResponse:
        assert request.transport is not None
        request.transport.write(data)
        request.transport.close()
        return web.Response()

    return handler


@pytest.mark.parametrize(
    ("head", "code"),
    [
        (b"X-A: b\r\n" * 127, None),  # with Content-Length, aiohttp's bound: 128 fields
        (b"X-A: b\r\n" * 128, Code.NET_PROTOCOL),
        (b"X-Long: " + b"a" * 8182 + b"\r\n", None),  # a line of 8,190 bytes
        (b"X-Long: " + b"a" * 8183 + b"\r\n", Code.NET_PROTOCOL),
    ],
    ids=["128_fields", "129_fields", "line_8190", "line_8191"],
)
async def test_the_head_is_held_to_aiohttps_bounds(head: bytes, code: Code | None) -> None:
    data = b"HTTP/1.1 200 OK\r\n" + head + b"Content-Length: 2\r\n\r\nok"
    async with (
        serve(lambda base: {"/": raw_answer(data)}) as served,
        CurlTransport(ConnectionPolicy("test")) as transport,
    ):
        if code is None:
            answer = await transport.open(f"{served.base}/", timeouts=TIMEOUTS)
            assert answer.status == 200
        else:
            with pytest.raises(FetchError) as caught:
                await transport.open(f"{served.base}/", timeouts=TIMEOUTS)
            assert caught.value.code is code


async def test_a_proxy_from_the_environment_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """libcurl reads http_proxy itself; the guard then judges the proxy's address."""
    async with serve(lambda base: {"/page": Page(200, b"via the proxy")}) as proxy:
        monkeypatch.setenv("http_proxy", proxy.base)
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        async with CurlTransport(ConnectionPolicy("test", reach=Reach.PRIVATE)) as transport:
            answer = await transport.open("http://proxied.test/page", timeouts=TIMEOUTS)
            body = await answer.read()
        async with CurlTransport(ConnectionPolicy("test", reach=Reach.PUBLIC)) as transport:
            with pytest.raises(FetchError) as caught:
                await transport.open("http://proxied.test/page", timeouts=TIMEOUTS)
        hits = dict(proxy.hits)
    assert (answer.status, body, hits) == (200, b"via the proxy", {"/page": 1})
    assert caught.value.code is Code.NET_BLOCKED_ADDRESS  # a loopback proxy, a public run


@pytest.mark.slow
async def test_without_pycurl_the_checks_run_on_aiohttp_said_once(tmp_path: Path) -> None:
    report = tmp_path / "r.json"

    def routes(base: str) -> dict[str, Page]:
        return {"/s.xml": xml_page(urlset([url(f"{base}/a")])), "/a": Page(200, b"a")}

    launcher = "import sys; sys.modules['pycurl'] = None; import auditor.__main__ as m; m.entry()"
    async with serve(routes) as served:
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "-c", launcher, "--json", str(report), "--quiet"],
            *["--no-progress", "--allow-private", "--workers", "1", f"{served.base}/s.xml"],
            cwd=ROOT,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, stderr = await process.communicate()
        hits = dict(served.hits)
    written = json.loads(report.read_text())
    assert (process.returncode, len(stderr.decode().splitlines())) == (ExitCode.OK, 1)
    assert (written["config"]["engine"], written["summary"]["checked"], hits["/a"]) == (
        "aiohttp",
        1,
        1,
    )

"""URL checks against bad input and faults: each is a named finding, and the run goes on.

Every sitemap here lists a healthy URL beside the faulty one, which must still be checked and
answer 200; every audit must end well within a bound, with short timeouts. Servers are real,
on 127.0.0.1; a `.invalid` name never resolves and never leaves the machine (RFC 6761 §6.4).
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from auditor.config import Engine, Method
from auditor.demo.documents import Page, redirect, url, urlset, xml_page
from auditor.demo.server import Route, serve
from tests.helpers import Report, refused_port, run_audit, serve_untrusted_tls

# Every test once with each transport of the URL checks (tests/engines.py).
pytestmark = pytest.mark.usefixtures("engine")

HEALTHY = "/ok"
BOUND_S = 15.0  # generous: every audit here takes a few seconds at most
CHUNK = b"x" * 65536
# A URL on another origin than its sitemap is also a validation finding (not what these tests
# are about): left out of the codes compared.
_SCOPE = "loc.host_mismatch"
RoutesFor = Callable[[str], Mapping[str, Route]]


def codes(entry: Report) -> list[str]:
    return sorted(f["code"] for f in entry["findings"] if f["code"] != _SCOPE)


@dataclass(frozen=True)
class Run:
    """An audit of one faulty site: its entries by loc, the server's root URL and hits."""

    entries: Mapping[str, Report]
    base: str
    hits: Mapping[str, int]

    def entry(self, listed: str) -> Report:
        """The entry of a URL listed as a path on the site, or as an absolute URL."""
        return self.entries[listed if "://" in listed else self.base + listed]


async def audit_beside_healthy(
    tmp_path: Path, routes_for: RoutesFor, *listed: str, **overrides: Any
) -> Run:
    """Serve `routes_for` with a healthy page and a sitemap listing `listed` then the healthy
    page; audit it with URL checks; the healthy page must be fine, and the run bounded."""

    def site(base: str) -> dict[str, Route]:
        table = dict(routes_for(base))
        table[HEALTHY] = Page(200, b"<html>fine</html>", {"Content-Type": "text/html"})
        locs = [loc if "://" in loc else base + loc for loc in listed]
        table["/sitemap.xml"] = xml_page(urlset([url(loc) for loc in [*locs, base + HEALTHY]]))
        return table

    settings: dict[str, Any] = {"no_check": False, "timeout_s": 1.0, **overrides}
    started = time.monotonic()
    async with serve(site) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml", **settings)
        hits = dict(served.hits)
    assert time.monotonic() - started < BOUND_S
    entries = {entry["loc"]: entry for entry in audited.report["urls"]}
    assert len(entries) == len(listed) + 1
    healthy = entries[served.base + HEALTHY]
    assert (healthy["status"], codes(healthy)) == (200, [])
    return Run(entries, served.base, hits)


def counting(pages: list[Page], seen: list[str]) -> Route:
    """Answer `pages` in turn, then the last one forever; note each request's method."""

    async def handler(request: web.Request) -> web.StreamResponse:
        seen.append(request.method)
        page = pages[min(len(seen), len(pages)) - 1]
        return web.Response(status=page.status, body=page.body, headers=page.headers)

    return handler


def by_method(head: Page, get: Page, seen: list[str]) -> Route:
    """A server that answers HEAD and GET differently; notes each request's method."""

    async def handler(request: web.Request) -> web.StreamResponse:
        seen.append(request.method)
        page = head if request.method == "HEAD" else get
        return web.Response(status=page.status, body=page.body, headers=page.headers)

    return handler


# --- handlers that misbehave on purpose -----------------------------------------------------


def raw(data: bytes) -> Route:
    """Write `data` straight to the socket, bypassing HTTP, and close it."""

    async def handler(request: web.Request) -> web.StreamResponse:
        transport = request.transport
        assert transport is not None
        transport.write(data)
        transport.close()
        return web.Response()  # never sent: the connection is gone

    return handler


def _close(transport: asyncio.Transport, *, reset: bool) -> None:
    sock = transport.get_extra_info("socket")
    if reset and sock is not None:  # SO_LINGER 0: close() sends RST, not FIN
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        transport.abort()
    else:
        transport.close()


def broken_body(*, reset: bool) -> Route:
    """Promise 100,000 bytes, send 1,000, then close the connection (FIN, or RST)."""

    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/html"})
        response.content_length = 100_000
        await response.prepare(request)
        await response.write(b"<html>" + b" " * 994)
        transport = request.transport
        assert transport is not None
        await asyncio.sleep(0.05)  # let the head and the first bytes go out first
        _close(transport, reset=reset)
        return response

    return handler


async def slow_headers(request: web.Request) -> web.StreamResponse:
    """The status line and headers, one byte every 0.5 s."""
    transport = request.transport
    assert transport is not None
    for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok":
        if transport.is_closing():
            break
        transport.write(bytes([byte]))
        await asyncio.sleep(0.5)
    transport.close()
    return web.Response()


def streaming(*, content_length: int | None) -> Route:
    """A 200 whose body never ends (or declares `content_length` and streams towards it)."""

    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/html"})
        if content_length is not None:
            response.content_length = content_length
        await response.prepare(request)
        try:
            while True:
                await response.write(CHUNK)
        except ConnectionError:  # the client read what it wanted and let go
            return response

    return handler


async def slow_page(request: web.Request) -> web.StreamResponse:
    await asyncio.sleep(0.3)
    return web.Response(text="slow")


# --- network faults ---------------------------------------------------------------------------


async def test_body_cut_off_on_get(tmp_path: Path) -> None:
    run = await audit_beside_healthy(
        tmp_path, lambda b: {"/cut": broken_body(reset=False)}, "/cut", method=Method.GET
    )
    entry = run.entry("/cut")
    assert (entry["status"], entry["final_status"], entry["method"]) == (200, 200, "GET")
    assert codes(entry) == ["net.protocol"]  # RFC 9112 §8: shorter than its Content-Length


async def test_connection_reset_mid_body_on_get(tmp_path: Path) -> None:
    run = await audit_beside_healthy(
        tmp_path, lambda b: {"/cut": broken_body(reset=True)}, "/cut", method=Method.GET
    )
    entry = run.entry("/cut")
    assert (entry["status"], entry["final_status"], entry["method"]) == (200, 200, "GET")
    # The answer came and its body broke off: net.protocol, as for a body short of its
    # Content-Length (aiohttp reports both alike); net.connect is a reset before any answer.
    assert codes(entry) == ["net.protocol"]


@pytest.mark.slow
async def test_headers_sent_slowly_time_out(tmp_path: Path) -> None:
    run = await audit_beside_healthy(
        tmp_path, lambda b: {"/slow": slow_headers}, "/slow", retries=1
    )
    entry = run.entry("/slow")
    assert codes(entry) == ["net.timeout"]
    assert (entry["status"], entry["final_url"]) == (None, None)
    assert run.hits["/slow"] == 2  # a timeout is retried: --retries 1


@pytest.mark.parametrize(
    "content_length", [None, 1 << 30], ids=["endless", "one_gigabyte_declared"]
)
async def test_a_huge_body_is_read_no_further_than_its_prefix(
    tmp_path: Path, content_length: int | None
) -> None:
    run = await audit_beside_healthy(
        tmp_path,
        lambda b: {"/big": streaming(content_length=content_length)},
        "/big",
        method=Method.GET,
    )
    entry = run.entry("/big")
    assert (entry["status"], entry["method"], codes(entry)) == (200, "GET", [])


@pytest.mark.parametrize(
    "data",
    [
        b"HTTP/1.1 abc Not a status\r\n\r\n",
        b"HTTP/9.9 200 OK\r\nContent-Length: 0\r\n\r\n",
        b"I am not HTTP\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon in this header\r\n\r\n",
    ],
    ids=["bad_status", "bad_version", "not_http", "bad_header"],
)
async def test_a_malformed_response(tmp_path: Path, data: bytes) -> None:
    run = await audit_beside_healthy(tmp_path, lambda b: {"/bad": raw(data)}, "/bad")
    entry = run.entry("/bad")
    assert codes(entry) == ["net.protocol"]
    assert (entry["status"], entry["final_url"]) == (None, None)
    assert run.hits["/bad"] == 1  # not retried: the server will say the same again


async def test_a_connection_closed_before_any_answer(tmp_path: Path) -> None:
    run = await audit_beside_healthy(tmp_path, lambda b: {"/gone": raw(b"")}, "/gone")
    entry = run.entry("/gone")
    assert (entry["status"], codes(entry)) == (None, ["net.connect"])


async def test_a_connection_closed_before_any_answer_is_resent_within_each_try(
    tmp_path: Path, engine: Engine
) -> None:
    run = await audit_beside_healthy(tmp_path, lambda b: {"/gone": raw(b"")}, "/gone")
    # 3 tries (--retries 2). RFC 9112 §9.3.1 lets a client resend an idempotent request whose
    # persistent connection closed, which spares us false errors from keep-alive races:
    # aiohttp resends each try once; libcurl resends a try that went out on a kept-alive
    # connection (which of them did depends on the pool).
    if engine is Engine.AIOHTTP:
        assert run.hits["/gone"] == 6
    else:
        assert 3 <= run.hits["/gone"] <= 6


async def test_a_ten_kilobyte_location(tmp_path: Path) -> None:
    long = Page(301, b"", {"Location": "/" + "a" * 10_240})
    run = await audit_beside_healthy(tmp_path, lambda b: {"/long": long}, "/long")
    entry = run.entry("/long")
    # Observed: aiohttp refuses a header over 8,190 bytes before the auditor sees a Location.
    assert codes(entry) == ["net.protocol"]
    assert (entry["status"], entry["redirects"]) == (None, [])


@pytest.mark.parametrize(
    "location", ["file:///etc/passwd", "file:///", "javascript:alert(1)", "javascript:void(0)"]
)
async def test_a_redirect_out_of_the_web(tmp_path: Path, location: str) -> None:
    run = await audit_beside_healthy(tmp_path, lambda b: {"/out": redirect(302, location)}, "/out")
    entry = run.entry("/out")
    assert codes(entry) == ["redirect.bad_location"]
    assert [(hop["url"], hop["status"]) for hop in entry["redirects"]] == [(f"{run.base}/out", 302)]


async def test_a_host_that_does_not_resolve(tmp_path: Path) -> None:
    run = await audit_beside_healthy(tmp_path, lambda b: {}, "http://nowhere.invalid/")
    entry = run.entry("http://nowhere.invalid/")
    assert codes(entry) == ["net.dns"]
    assert (entry["status"], entry["final_url"], entry["method"]) == (None, None, None)


async def test_a_refused_port(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{refused_port()}/"
    run = await audit_beside_healthy(tmp_path, lambda b: {}, dead)
    assert codes(run.entry(dead)) == ["net.connect"]


async def test_an_untrusted_certificate(tmp_path: Path) -> None:
    async with serve_untrusted_tls() as tls:
        run = await audit_beside_healthy(tmp_path, lambda b: {}, f"{tls}/")
    entry = run.entry(f"{tls}/")
    assert codes(entry) == ["net.tls"]
    assert entry["status"] is None


# --- answers that are retried, or asked again with GET -----------------------------------------


async def test_429_with_retry_after_then_200(tmp_path: Path) -> None:
    seen: list[str] = []
    busy = Page(429, b"", {"Retry-After": "1"})  # capped by max_retry_after_s in tests
    run = await audit_beside_healthy(
        tmp_path,
        lambda b: {"/busy": counting([busy, Page(200, b"ok")], seen)},
        "/busy",
        method=Method.AUTO,
    )
    entry = run.entry("/busy")
    assert (entry["status"], entry["final_status"], codes(entry)) == (200, 200, [])
    assert seen == ["HEAD", "HEAD"]


async def test_429_always(tmp_path: Path) -> None:
    seen: list[str] = []
    busy = Page(429, b"", {"Retry-After": "0"})
    run = await audit_beside_healthy(
        tmp_path, lambda b: {"/busy": counting([busy], seen)}, "/busy", method=Method.AUTO
    )
    entry = run.entry("/busy")
    assert (entry["status"], codes(entry)) == (429, ["http.blocked"])
    assert seen == ["HEAD"] * 3  # --retries 2; a HEAD's 429 is believed, not asked with GET


async def test_503_always(tmp_path: Path) -> None:
    seen: list[str] = []
    run = await audit_beside_healthy(
        tmp_path, lambda b: {"/down": counting([Page(503)], seen)}, "/down", method=Method.AUTO
    )
    entry = run.entry("/down")
    assert (entry["status"], entry["method"], codes(entry)) == (503, "GET", ["http.server_error"])
    # --retries 2 for HEAD, then (a 5xx a GET might not give) the same again for GET.
    assert seen == ["HEAD"] * 3 + ["GET"] * 3


async def test_head_refused_then_get(tmp_path: Path) -> None:
    seen: list[str] = []
    refused = by_method(Page(405), Page(200, b"<html>page</html>"), seen)
    run = await audit_beside_healthy(
        tmp_path, lambda b: {"/page": refused}, "/page", method=Method.AUTO
    )
    entry = run.entry("/page")
    assert (entry["status"], entry["method"], codes(entry)) == (200, "GET", [])
    assert seen == ["HEAD", "GET"]


async def test_head_mishandled_then_get(tmp_path: Path) -> None:
    seen: list[str] = []
    mishandled = by_method(Page(404), Page(200, b"<html>page</html>"), seen)
    run = await audit_beside_healthy(
        tmp_path, lambda b: {"/page": mishandled}, "/page", method=Method.AUTO
    )
    entry = run.entry("/page")
    assert (entry["status"], entry["method"], codes(entry)) == (200, "GET", [])
    assert seen == ["HEAD", "GET"]


# --- what an answer says about the page ---------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("noindex", ["url.noindex"]),
        ("none", ["url.noindex"]),
        ("nofollow, noindex", ["url.noindex"]),
        ("googlebot: noindex", ["url.noindex"]),
        ("GoogleBot: noindex", ["url.noindex"]),
        ("sitemap-auditor: noindex", []),  # judged as Googlebot, not as us
        ("otherbot: noindex", []),
        ("nofollow", []),
        ("unavailable_after: 2030-01-01", []),
    ],
)
async def test_x_robots_tag(tmp_path: Path, value: str, expected: list[str]) -> None:
    page = Page(200, b"<html>page</html>", {"X-Robots-Tag": value})
    run = await audit_beside_healthy(tmp_path, lambda b: {"/page": page}, "/page")
    assert codes(run.entry("/page")) == expected


@pytest.mark.parametrize(
    ("method", "expected"), [(Method.GET, ["url.noindex"]), (Method.AUTO, [])], ids=["get", "auto"]
)
async def test_meta_robots_noindex_where_the_page_is_read(
    tmp_path: Path, method: Method, expected: list[str]
) -> None:
    html = b'<html><head><meta name="robots" content="noindex,follow"></head></html>'
    page = Page(200, html, {"Content-Type": "text/html"})
    run = await audit_beside_healthy(tmp_path, lambda b: {"/page": page}, "/page", method=method)
    assert codes(run.entry("/page")) == expected  # a HEAD answer has no page to read


@pytest.mark.parametrize(
    "challenge",
    [
        Page(403, b"<html>wait</html>", {"cf-mitigated": "challenge"}),
        # No telling header: the GET that follows a HEAD's 403 reads the shield's page.
        Page(403, b"<html><title>Just a moment...</title></html>", {"Content-Type": "text/html"}),
    ],
    ids=["header", "body"],
)
async def test_a_bot_challenge(tmp_path: Path, challenge: Page) -> None:
    run = await audit_beside_healthy(tmp_path, lambda b: {"/page": challenge}, "/page")
    entry = run.entry("/page")
    assert codes(entry) == ["http.blocked"]
    [blocked] = entry["findings"]
    assert (blocked["detail"]["challenge"], entry["status"]) == ("cloudflare", 403)


async def test_a_body_whose_encoding_is_broken(tmp_path: Path) -> None:
    garbled = Page(200, b"\x1f\x8b not gzip at all", {"Content-Encoding": "gzip"})
    run = await audit_beside_healthy(
        tmp_path, lambda b: {"/page": garbled}, "/page", method=Method.GET
    )
    entry = run.entry("/page")
    assert (entry["status"], codes(entry)) == (200, [])  # a page, not a sitemap: its status counts


async def test_a_slow_page(tmp_path: Path) -> None:
    run = await audit_beside_healthy(tmp_path, lambda b: {"/slow": slow_page}, "/slow", slow_s=0.1)
    entry = run.entry("/slow")
    assert (entry["status"], codes(entry)) == (200, ["url.slow"])
    assert entry["elapsed_ms"] >= 300


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, "http.client_error"),
        (401, "http.unauthorized"),  # the site's own refusal is an error
        (403, "http.forbidden"),
        (404, "http.not_found"),
        (410, "http.not_found"),
        (418, "http.client_error"),
        (500, "http.server_error"),
    ],
)
async def test_error_statuses(tmp_path: Path, status: int, code: str) -> None:
    run = await audit_beside_healthy(tmp_path, lambda b: {"/page": Page(status)}, "/page")
    entry = run.entry("/page")
    assert (entry["status"], entry["final_status"], codes(entry)) == (status, status, [code])


# --- robots.txt ------------------------------------------------------------------------------


async def test_disallowed_by_robots_txt(tmp_path: Path) -> None:
    robots = Page(200, b"User-agent: *\nDisallow: /private/\n", {"Content-Type": "text/plain"})
    run = await audit_beside_healthy(
        tmp_path,
        lambda b: {"/robots.txt": robots, "/private/page": Page(200, b"private")},
        "/private/page",
    )
    entry = run.entry("/private/page")
    assert (entry["status"], codes(entry)) == (200, ["url.blocked_by_robots"])  # still checked


async def test_robots_txt_is_judged_as_googlebot(tmp_path: Path) -> None:
    """Search Console's verdict is Googlebot's group, whatever our User-Agent says.

    RFC 9309 §2.2.1: a crawler obeys its own group alone when one names it, not `*`'s too; so
    `*: Disallow: /` with `Googlebot: Allow: /` blocks nothing, and a group of ours none.
    """
    robots = Page(
        200,
        b"User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nDisallow: /gb-only/\n\n"
        b"User-agent: sitemap-auditor\nDisallow: /page\n",
        {"Content-Type": "text/plain"},
    )
    run = await audit_beside_healthy(
        tmp_path,
        lambda b: {
            "/robots.txt": robots,
            "/page": Page(200, b"page"),
            "/gb-only/page": Page(200, b"not for Googlebot"),
        },
        "/page",
        "/gb-only/page",
    )
    assert codes(run.entry("/page")) == []
    assert codes(run.entry("/gb-only/page")) == ["url.blocked_by_robots"]


async def test_robots_agent_names_whose_verdict_it_is(tmp_path: Path) -> None:
    robots = Page(200, b"User-agent: bingbot\nDisallow: /page\n", {"Content-Type": "text/plain"})
    routes = {"/robots.txt": robots, "/page": Page(200, b"page")}
    googlebot = await audit_beside_healthy(tmp_path / "g", lambda b: routes, "/page")
    bingbot = await audit_beside_healthy(
        tmp_path / "b", lambda b: routes, "/page", robots_agent="bingbot"
    )
    assert codes(googlebot.entry("/page")) == []
    assert codes(bingbot.entry("/page")) == ["url.blocked_by_robots"]


async def test_a_redirect_into_a_blocked_path_is_blocked(tmp_path: Path) -> None:
    """A URL is judged where it lands (Googlebot does not follow into /private/)."""
    robots = Page(200, b"User-agent: *\nDisallow: /private/\n", {"Content-Type": "text/plain"})
    run = await audit_beside_healthy(
        tmp_path,
        lambda b: {
            "/robots.txt": robots,
            "/moved": redirect(301, "/private/page"),
            "/private/page": Page(200, b"private"),
        },
        "/moved",
    )
    entry = run.entry("/moved")
    assert codes(entry) == ["redirect.permanent", "url.blocked_by_robots"]
    [blocked] = [f for f in entry["findings"] if f["code"] == "url.blocked_by_robots"]
    assert blocked["detail"]["lands"].endswith("/private/page")

"""The per-host breaker: given up after failures in a row, asked again by a probe, and never
given up while the host answers (a healthy busy host with slow pages keeps being checked)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from aiohttp import web

from auditor.codes import Code
from auditor.config import Method
from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import Route, serve
from auditor.net.breaker import MAX_HOSTS, Breaker, GivenUp
from tests.helpers import run_audit

T, C = Code.NET_TIMEOUT, Code.NET_CONNECT


def test_a_host_is_given_up_after_failures_in_a_row_only() -> None:
    breaker = Breaker(threshold=3, probe_interval_s=10.0)
    for _ in range(2):
        breaker.failed("a", T, 0.0)
    assert breaker.refuse("a", 0.0) is None
    breaker.answered("a")  # any answer starts the count again
    for _ in range(2):
        breaker.failed("a", T, 0.0)
    assert breaker.refuse("a", 0.0) is None
    breaker.failed("a", C, 1.0)
    assert breaker.refuse("a", 1.0) == GivenUp(C, 3)  # the last failure's code
    assert breaker.refuse("b", 1.0) is None  # hosts are independent


def test_a_given_up_host_gets_one_probe_per_interval_and_an_answer_brings_it_back() -> None:
    breaker = Breaker(threshold=2, probe_interval_s=10.0)
    breaker.failed("a", T, 0.0)
    breaker.failed("a", T, 0.0)
    assert [breaker.refuse("a", now) is None for now in (5.0, 10.0, 10.5, 19.9, 20.0)] == [
        False, True, False, False, True,
    ]  # fmt: skip
    breaker.failed("a", T, 21.0)  # the probe failed: still given up
    assert breaker.refuse("a", 21.0) == GivenUp(T, 3)
    breaker.answered("a")
    assert breaker.refuse("a", 21.0) is None


def test_the_hosts_kept_are_bounded() -> None:
    breaker = Breaker(threshold=2)
    for n in range(MAX_HOSTS + 10):
        breaker.failed(f"h{n}", T, 0.0)
    assert len(breaker.failing_hosts) <= MAX_HOSTS


def slow_or_fast(hang: set[str]) -> Route:
    async def handler(request: web.Request) -> web.StreamResponse:
        if request.path in hang:
            await asyncio.sleep(30)
        return web.Response(text="fine")

    return handler


def hanging(paths: list[str], hang: set[str]) -> Callable[[str], dict[str, Route]]:
    """A sitemap of `paths` on one host; those in `hang` never answer."""

    def routes(base: str) -> dict[str, Route]:
        table: dict[str, Route] = {path: slow_or_fast(hang) for path in paths}
        table["/s.xml"] = xml_page(urlset([url(base + path) for path in paths]))
        table["/robots.txt"] = Page(404)
        return table

    return routes


@pytest.mark.slow
async def test_a_busy_host_with_slow_pages_is_never_given_up(tmp_path: Path) -> None:
    """Every third page never answers, on one busy host: 40 timeouts, never 32 in a row."""
    paths = [f"/p/{n}" for n in range(120)]
    hang = set(paths[::3])
    async with serve(hanging(paths, hang)) as served:
        audited = await run_audit(
            tmp_path, f"{served.base}/s.xml", no_check=False, timeout_s=0.4, retries=0,
            per_host=16, method=Method.GET,
        )  # fmt: skip
    by_path = {entry["loc"].removeprefix(served.base): entry for entry in audited.report["urls"]}
    timed_out = {path for path, entry in by_path.items() if entry["status"] is None}
    assert timed_out == hang
    assert all(entry["status"] == 200 for path, entry in by_path.items() if path not in hang)
    details = [f.get("detail") or {} for e in by_path.values() for f in e["findings"]]
    assert not any("given_up_after" in detail for detail in details)


@pytest.mark.slow
async def test_a_given_up_host_says_which_urls_were_requested(tmp_path: Path) -> None:
    """Every page hangs: the host is given up mid-run. A URL tried before that reports its own
    failure and that its retry was not sent; one never sent says so; never both alike."""
    paths = [f"/p/{n}" for n in range(40)]
    async with serve(hanging(paths, set(paths))) as served:
        audited = await run_audit(
            tmp_path, f"{served.base}/s.xml", no_check=False, timeout_s=0.3, retries=2,
            per_host=8, method=Method.GET,
        )  # fmt: skip
        hits = dict(served.hits)
    given_up = {
        entry["loc"].removeprefix(served.base): finding["detail"]
        for entry in audited.report["urls"]
        for finding in entry["findings"]
        if "given_up_after" in (finding.get("detail") or {})
    }
    requested = {path for path in given_up if hits.get(path, 0) > 0}
    assert requested  # some were tried, then not retried
    assert requested != set(given_up)  # and some were never sent
    assert {path for path, detail in given_up.items() if detail.get("requested")} == requested

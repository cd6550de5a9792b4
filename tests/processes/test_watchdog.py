"""The watchdog: a run that stops moving ends INCOMPLETE (exit 3) with its report, never hangs.

And `-v`: every request one line, so that a slow or stuck run explains itself.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path

import pytest
from aiohttp import web

from auditor.clock import SystemClock
from auditor.config import AuditConfig
from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import Route, serve
from auditor.errors import ExitCode
from auditor.processes.watchdog import STALL_FACTOR, Stalled, stall_window_s, waits_text, watch
from auditor.results.verdict import Outcome
from tests.fault_server import run_cli
from tests.helpers import run_audit, target


async def test_a_run_that_does_not_move_is_stopped_within_a_window() -> None:
    clock = SystemClock()
    began = clock.monotonic()
    with pytest.raises(Stalled):
        await watch(lambda: 7, window_s=0.2, clock=clock, waits=lambda: "host (1 in flight)")
    assert 0.2 <= clock.monotonic() - began < 2.0


async def test_a_run_that_moves_is_never_stopped() -> None:
    counter = itertools.count()
    clock = SystemClock()
    watching = asyncio.create_task(
        watch(lambda: next(counter), window_s=0.05, clock=clock, waits=lambda: "")
    )
    await asyncio.sleep(0.5)  # ten windows
    assert not watching.done()
    watching.cancel()
    with pytest.raises(asyncio.CancelledError):
        await watching


def test_the_window_covers_every_pause_a_healthy_run_takes() -> None:
    base = AuditConfig(targets=(target("https://example.com/"),))
    assert stall_window_s(base) == STALL_FACTOR * base.max_retry_after_s  # Retry-After: 60 s
    slow = AuditConfig(targets=base.targets, timeout_s=120.0)
    assert stall_window_s(slow) == STALL_FACTOR * 120.0
    polite = AuditConfig(targets=base.targets, rate=0.005)  # one request every 200 s
    assert stall_window_s(polite) == STALL_FACTOR * 200.0
    assert stall_window_s(AuditConfig(targets=base.targets, stall_s=0.5)) == 0.5


def test_the_hosts_waited_on_are_named_busiest_first() -> None:
    assert waits_text([]) == "no request in flight"
    rows = [(f"h{n}:80", 8, 40 - n) for n in range(5)]
    said = waits_text(rows)
    assert said.startswith("h0:80 (8 in flight, 40 waiting)")
    assert said.endswith("and 2 more hosts")


async def test_a_stuck_run_ends_incomplete_with_its_report(tmp_path: Path) -> None:
    """A page that answers after 5 s, a window of 0.5 s: the watchdog, not the page, ends it."""

    async def late(_request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(5)
        return web.Response(text="late")

    def site(base: str) -> dict[str, Route]:
        return {"/s.xml": xml_page(urlset([url(f"{base}/late")])), "/late": late}

    async with serve(site) as served:
        run = await run_audit(
            tmp_path, f"{served.base}/s.xml", no_check=False, timeout_s=30.0, stall_s=0.5
        )
    assert run.result.verdict.outcome is Outcome.INCOMPLETE
    assert run.result.exit_code == ExitCode.FAILED
    assert run.report["complete"] is False
    assert run.report["summary"]["sitemaps"] == 1  # what was gathered is written


@pytest.mark.slow
async def test_verbose_says_every_request(tmp_path: Path) -> None:
    """-v: a line per request (robots.txt, the sitemap, each page), with its status."""
    pages = {f"/p/{n}": Page(200 if n % 2 else 404, b"x") for n in range(6)}

    def site(base: str) -> dict[str, Route]:
        listed = urlset([url(f"{base}{path}") for path in pages])
        return {"/robots.txt": Page(404, b""), "/s.xml": xml_page(listed), **pages}

    async with serve(site) as served:
        argv = ["-v", "--allow-private", "--json", str(tmp_path / "r.json")]
        argv += ["--html", str(tmp_path / "r.html"), f"{served.base}/s.xml"]
        ran = await run_cli(argv, tmp_path=tmp_path, limit_s=60)
        hits = dict(served.hits)
    assert ran.exit_code == ExitCode.FINDINGS
    said = [line for line in ran.stderr.splitlines() if "INFO auditor.net.opener" in line]
    for path, count in hits.items():
        status = (
            "404" if path == "/robots.txt" else str(pages[path].status if path in pages else 200)
        )
        lines = [line for line in said if f"{served.base}{path} -> {status} " in line]
        assert len(lines) == count, (path, said)
    assert len(said) == sum(hits.values())
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["checked"] == len(pages)

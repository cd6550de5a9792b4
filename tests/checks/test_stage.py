"""The check stage on real loopback servers: streaming, dedup, politeness, selection, demo."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import signal
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from aiohttp import web

from auditor.codes import Code
from auditor.config import Engine, Method
from auditor.demo.documents import Page, sitemapindex, url, urlset, xml_page
from auditor.demo.server import DEMO_CA, Route, RoutesFor, serve, serve_demo
from auditor.errors import ExitCode
from auditor.flow.ticker import Progress
from tests.helpers import run_audit, validate_report

# Every test once with each transport of the URL checks (tests/engines.py).
pytestmark = pytest.mark.usefixtures("engine")

HTML = Page(200, b"<title>ok</title>")


async def test_checks_start_with_the_first_entry(tmp_path: Path) -> None:
    """The second sitemap is only sent once a URL of the first one was requested."""
    requested = asyncio.Event()

    async def first_page(request: web.Request) -> web.StreamResponse:
        requested.set()
        return web.Response(text="ok")

    async def waits(request: web.Request) -> web.StreamResponse:
        await asyncio.wait_for(requested.wait(), timeout=5)  # never set: the test fails
        return web.Response(body=urlset([url(f"http://{request.host}/b")]).encode())

    def routes(base: str) -> dict[str, Route]:
        return {
            "/index.xml": xml_page(sitemapindex([f"{base}/one.xml", f"{base}/two.xml"])),
            "/one.xml": xml_page(urlset([url(f"{base}/a")])),
            "/two.xml": waits,
            "/a": first_page,
            "/b": HTML,
        }

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/index.xml", no_check=False)
    assert audited.report["summary"]["by_status_class"] == {"2xx": 2}
    assert audited.codes() == Counter()


async def test_each_url_is_requested_once_and_counts_for_every_listing(tmp_path: Path) -> None:
    def routes(base: str) -> dict[str, Page]:
        one = [url(f"{base}/a"), url(f"{base}/gone"), url(f"{base}/a")]
        two = [url(f"{base}/a"), url(f"{base}/./gone"), url(f"{base}/c")]
        return {
            "/index.xml": xml_page(sitemapindex([f"{base}/one.xml", f"{base}/two.xml"])),
            "/one.xml": xml_page(urlset(one)),
            "/two.xml": xml_page(urlset(two)),
            "/a": HTML,
            "/c": HTML,
            "/gone": Page(404),
        }

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/index.xml", no_check=False)
        hits = dict(served.hits)
    assert hits["/a"] == 1
    assert hits["/c"] == 1
    assert hits["/gone"] == 1  # one GET: the default method reads the page
    summary = audited.report["summary"]
    assert (summary["urls"], summary["checked"]) == (3, 3)
    assert summary["by_code"] == {"loc.duplicate": 3, "http.not_found": 1}
    by_sitemap = summary["by_sitemap"]
    one, two = (f"{served.base}/{name}.xml" for name in ("one", "two"))
    # A URL listed twice counts for both sitemaps, its indexability too (the 404 is not).
    classes = {"2xx": 1, "4xx": 1}
    assert by_sitemap[one] == {
        "checked": 2,
        "failing": 1,
        "indexable": 1,
        "by_status_class": classes,
    }
    classes = {"2xx": 2, "4xx": 1}
    assert by_sitemap[two] == {
        "checked": 3,
        "failing": 1,
        "indexable": 2,
        "by_status_class": classes,
    }


def many(count: int) -> dict[str, Page]:
    return {f"/p/{n}": HTML for n in range(count)}


def site_of(count: int, *, extra: dict[str, Route] | None = None) -> RoutesFor:
    def routes(base: str) -> dict[str, Route]:
        locs = [url(f"{base}/p/{n}") for n in range(count)]
        return {"/s.xml": xml_page(urlset(locs)), **many(count), **(extra or {})}

    return routes


async def test_include_exclude_and_sample_choose_what_is_requested(tmp_path: Path) -> None:
    async with serve(site_of(20)) as served:
        target = f"{served.base}/s.xml"
        filtered = await run_audit(
            tmp_path, target, no_check=False, include=(r"/p/1\d?$",), exclude=(r"/p/1[5-9]$",)
        )
        sampled = await run_audit(tmp_path, target, no_check=False, sample=3)
    checked = sorted(u["loc"].rsplit("/", 1)[1] for u in filtered.report["urls"] if "status" in u)
    assert checked == ["1", "10", "11", "12", "13", "14"]
    assert filtered.report["summary"]["urls"] == 20  # every URL is still reported
    assert sampled.report["summary"]["checked"] == 3
    assert len(sampled.report["urls"]) == 20


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])  # 2: the limit holds across checker processes
async def test_per_host_limit_holds_and_concurrency_is_used(tmp_path: Path, workers: int) -> None:
    in_flight, most, limit = 0, 0, 0
    full = asyncio.Event()  # the limit was reached: answers are held until then (at most 2 s)

    async def page(request: web.Request) -> web.StreamResponse:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        if in_flight >= limit:
            full.set()
        with contextlib.suppress(TimeoutError):  # a late checker process does not hang it
            await asyncio.wait_for(full.wait(), timeout=2.0)
        await asyncio.sleep(0.01)
        in_flight -= 1
        return web.Response(text="ok")

    def routes(base: str) -> dict[str, Route]:
        locs = [url(f"{base}/p/{n}") for n in range(24)]
        return {"/s.xml": xml_page(urlset(locs)), **{f"/p/{n}": page for n in range(24)}}

    async with serve(routes) as served:
        target = f"{served.base}/s.xml"
        for limit in (3, 12):
            most = 0
            full.clear()
            await run_audit(tmp_path, target, no_check=False, per_host=limit, workers=workers)
            assert most == limit  # never more; and with 2 processes, both were busy at once


async def test_per_host_counts_a_request_until_its_body_is_read(tmp_path: Path) -> None:
    in_flight, most = 0, 0

    async def page(request: web.Request) -> web.StreamResponse:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        response = web.StreamResponse(headers={"Content-Type": "text/html"})
        await response.prepare(request)  # the headers go first ...
        await asyncio.sleep(0.05)  # ... the body later: the request is still in flight
        await response.write(b"<title>ok</title>")
        await response.write_eof()
        in_flight -= 1
        return response

    def routes(base: str) -> dict[str, Route]:
        locs = [url(f"{base}/p/{n}") for n in range(24)]
        return {"/s.xml": xml_page(urlset(locs)), **{f"/p/{n}": page for n in range(24)}}

    async with serve(routes) as served:
        audited = await run_audit(
            tmp_path, f"{served.base}/s.xml", no_check=False, per_host=3, method=Method.GET
        )
    assert audited.report["summary"]["by_status_class"] == {"2xx": 24}
    assert most == 3


async def test_rate_spaces_requests_to_a_host(tmp_path: Path) -> None:
    times: list[float] = []

    async def page(request: web.Request) -> web.StreamResponse:
        times.append(time.monotonic())
        return web.Response(text="ok")

    def routes(base: str) -> dict[str, Route]:
        locs = [url(f"{base}/p/{n}") for n in range(6)]
        return {"/s.xml": xml_page(urlset(locs)), **{f"/p/{n}": page for n in range(6)}}

    async with serve(routes) as served:
        await run_audit(tmp_path, f"{served.base}/s.xml", no_check=False, rate=20.0)
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert len(times) == 6
    # 1/20 s apart as sent; as seen by a server sharing the test's loop, one late arrival
    # shortens the next gap, never the span.
    assert times[-1] - times[0] > 5 * 0.05 * 0.95
    assert min(gaps) > 0.02


@pytest.mark.slow
async def test_a_429_slows_the_host_down_for_every_worker(tmp_path: Path) -> None:
    times: dict[str, float] = {}
    throttled_at: list[float] = []

    async def busy(request: web.Request) -> web.StreamResponse:
        if not throttled_at:
            throttled_at.append(time.monotonic())
            return web.Response(status=429, headers={"Retry-After": "1"})
        return web.Response(text="ok")

    async def page(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(0.1)  # the 429 arrives while these are in flight
        times.setdefault(request.path, time.monotonic())
        return web.Response(text="ok")

    def routes(base: str) -> dict[str, Route]:
        locs = [url(f"{base}/busy"), *(url(f"{base}/p/{n}") for n in range(12))]
        pages = {f"/p/{n}": page for n in range(12)}
        return {"/s.xml": xml_page(urlset(locs)), "/busy": busy, **pages}

    async with serve(routes) as served:
        audited = await run_audit(
            tmp_path,
            f"{served.base}/s.xml",
            no_check=False,
            per_host=2,
            max_retry_after_s=0.5,  # Retry-After: 1 is capped to this
        )
    assert audited.codes() == Counter()  # the retry got a 200
    paused_from = throttled_at[0]
    late = [at for at in times.values() if at > paused_from + 0.15]
    early_starts = [at - 0.1 for at in late if paused_from < at - 0.1 < paused_from + 0.45]
    assert late, times
    assert early_starts == []  # nobody asked the host during its pause


@pytest.mark.slow
async def test_progress_is_reported(tmp_path: Path) -> None:
    seen: list[Progress] = []

    async def slow_page(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(0.1)
        return web.Response(text="ok")

    def routes(base: str) -> dict[str, Route]:
        locs = [url(f"{base}/p/{n}") for n in range(10)]
        return {"/s.xml": xml_page(urlset(locs)), **{f"/p/{n}": slow_page for n in range(10)}}

    async with serve(routes) as served:
        await run_audit(
            tmp_path, f"{served.base}/s.xml", no_check=False, per_host=1, on_progress=seen.append
        )
    assert len(seen) >= 3
    assert [p.checked for p in seen] == sorted(p.checked for p in seen)
    done = [p for p in seen if p.to_check is not None]
    assert done, seen
    assert done[-1].to_check == 10
    assert seen[-1].found == 10


@pytest.mark.slow
async def test_the_demo_shows_every_url_check_and_extension_code(tmp_path: Path) -> None:
    async with serve_demo() as sites:
        audited = await run_audit(
            tmp_path,
            *sites,
            no_check=False,
            # the demo's own setting: a private target
            # (docs/explanation/design.md#private-addresses)
            allow_private=False,
            ca_file=DEMO_CA,
            timeout_s=2.0,
            retries=1,
            slow_s=0.5,
            crawl=True,  # as `--demo` runs
        )
    families = ("http.", "redirect.", "net.", "url.", "hreflang.", "image.", "video.", "news.")
    families_crawled = (*families, "coverage.")
    wanted = {code.value for code in Code if code.value.startswith(families_crawled)}
    # The newer codes of the sitemap side, beside the URL checks' (run.limit_reached needs a
    # --max-sitemaps below the site's count: the scenarios show it).
    wanted |= {"xml.bom", "loc.fragment", "loc.tracking_param", "lastmod.behind_page"}
    wanted |= {"discovery.same_document"}
    assert wanted <= set(audited.codes()), wanted - set(audited.codes())
    assert audited.result.exit_code is ExitCode.FINDINGS


async def test_the_demo_under_a_run_cap_shows_run_limit_reached(tmp_path: Path) -> None:
    """`--demo --max-sitemaps 5`: the run's own cap is a notice, no site error."""
    async with serve_demo() as sites:
        audited = await run_audit(
            tmp_path, *sites, allow_private=False, ca_file=DEMO_CA, max_sitemaps=5
        )
    codes = audited.codes()
    assert codes["run.limit_reached"] == 1
    assert codes["index.too_many_sitemaps"] == 0
    assert audited.report["summary"]["sitemaps"] <= 5


async def stalled(request: web.Request) -> web.StreamResponse:
    await asyncio.sleep(3600)
    raise AssertionError("unreachable")


@pytest.mark.slow
async def test_a_signal_during_checks_stops_within_two_seconds(
    tmp_path: Path, engine: Engine
) -> None:
    report_path = tmp_path / "r.json"
    async with serve(site_of(40, extra={f"/p/{n}": stalled for n in range(20, 40)})) as served:
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "auditor", "--json", str(report_path), "--allow-private"],
            *["--per-host", "64", "--timeout", "60", "--engine", engine],
            f"{served.base}/s.xml",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        while len(served.hits) < 41:  # the sitemap and every page
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)  # the answers of the hits counted reach the audit (a child's)
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        returncode = await asyncio.wait_for(process.wait(), timeout=10)
        took_s = time.monotonic() - signalled
    assert returncode == ExitCode.FAILED
    assert took_s < 2.0
    report = json.loads(report_path.read_text())
    validate_report(report)
    assert report["complete"] is False
    assert report["summary"]["checked"] >= 20  # the pages that answered are in it

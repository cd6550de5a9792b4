"""The crawl (--crawl) on real loopback sites: scope, robots.txt, nofollow, <base>, traps, stops.

Every test runs once per transport of the checks (the crawl requests through them).
"""

from __future__ import annotations

import asyncio
import csv
import json
import signal
import sys
from pathlib import Path

import pytest
from aiohttp import web

from auditor.config import Engine, FailOn
from auditor.demo.documents import Page, redirect
from auditor.demo.server import Route, serve
from auditor.errors import ExitCode
from tests.helpers import run_audit
from tests.wings.crawl.site import HTML, codes_of, coverage, crawl, entry, page, site

pytestmark = pytest.mark.usefixtures("engine")


async def test_the_three_findings_and_one_request_per_url(tmp_path: Path) -> None:
    pages = {
        "/": page("/a", "/b", "/d1"),
        "/a": page("/"),
        "/b": page("/a"),  # linked, in no sitemap: not_in_sitemap
        "/d1": page("/d2"),
        "/d2": page("/d3"),
        "/d3": page("/d4"),
        "/d4": page(),  # four clicks from the home page: deep
        "/lonely": page("/"),  # listed, linked from nowhere: an orphan
    }
    listed = ["/", "/a", "/d1", "/d4", "/lonely"]
    async with serve(lambda base: site(base, pages, listed=listed)) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert codes_of(entry(audited, "/b")) == ["coverage.not_in_sitemap"]
    assert codes_of(entry(audited, "/lonely")) == ["coverage.orphan"]
    assert codes_of(entry(audited, "/d4")) == ["coverage.deep"]
    assert codes_of(entry(audited, "/a")) == []
    assert entry(audited, "/d4")["crawl"]["depth"] == 4
    assert entry(audited, "/d4")["crawl"]["linked_from"].endswith("/d3")
    assert entry(audited, "/")["crawl"] == {
        "depth": 0,
        "linked_from": None,
        "links": 3,
        "requested": True,
    }
    assert entry(audited, "/b")["sitemaps"] == []
    found = coverage(audited)
    assert found["complete"] is True
    assert (found["crawled"], found["crawled_and_listed"], found["crawled_only"]) == (7, 4, 3)
    assert (found["listed_only"], found["orphans"], found["deep"]) == (1, 1, 1)
    assert found["not_in_sitemap"] == 3  # /b, /d2, /d3
    # One request per URL: the listed URLs the crawl read are not checked again.
    for path in ("/", "/a", "/d1", "/d4", "/b", "/lonely"):
        assert served.hits[path] == 1, path
    assert entry(audited, "/a")["status"] == 200  # the crawl's check is the listed URL's


async def test_the_crawl_stays_within_scheme_host_and_port(tmp_path: Path) -> None:
    async with serve(lambda base: {"/": page()}) as other:
        other_port = other.base.rsplit(":", 1)[1]

        def routes(base: str) -> dict[str, Route]:
            port = base.rsplit(":", 1)[1]
            links = (
                f"http://127.0.0.1:{other_port}/elsewhere",  # another port
                f"http://localhost:{port}/other-host",  # another host name
                f"https://127.0.0.1:{port}/tls",  # another scheme
                "/inside",
            )
            return site(base, {"/": page(*links), "/inside": page()}, listed=["/"])

        async with serve(routes) as served:
            audited = await crawl(tmp_path, f"{served.base}/")
    assert served.hits["/inside"] == 1
    assert "/other-host" not in served.hits
    assert "/tls" not in served.hits
    assert "/elsewhere" not in other.hits
    assert coverage(audited)["crawled"] == 2
    assert coverage(audited)["scope"] == [served.base]


async def test_www_is_the_same_site_and_a_host_can_be_added(tmp_path: Path) -> None:
    def routes(base: str) -> dict[str, Route]:
        port = base.rsplit(":", 1)[1]
        links = (f"http://www.localhost:{port}/www-page", f"{base}/added", f"{base}/not-added")
        pages: dict[str, Route] = {"/": page(*links), "/www-page": page(), "/added": page()}
        return site(base, pages, listed=[])

    async with serve(routes) as served:
        port = served.base.rsplit(":", 1)[1]
        audited = await crawl(
            tmp_path, f"http://localhost:{port}/", crawl_hosts=(f"127.0.0.1:{port}",)
        )
    found = coverage(audited)
    assert f"http://www.localhost:{port}" in found["scope"]
    assert served.hits["/added"] == 1  # the host added by --crawl-host
    assert served.hits["/not-added"] == 1  # the same host, any path
    # The www. alias is in scope: the crawl asks its robots.txt first, which getaddrinfo cannot
    # resolve here (no DNS for www.localhost): a host without a readable robots.txt is not
    # crawled (RFC 9309 §2.3.1.4), and the crawl did not cover the site.
    assert (found["crawled"], found["no_robots"], found["complete"]) == (3, 1, False)
    assert "/www-page" not in served.hits


async def test_robots_txt_is_obeyed_as_the_crawls_own_agent(tmp_path: Path) -> None:
    robots = "User-agent: sitemap-auditor\nDisallow: /mine/\n\nUser-agent: *\nDisallow: /all/\n"
    pages = {
        "/": page("/mine/page", "/all/page", "/open"),
        "/mine/page": page("/behind"),
        "/all/page": page(),
        "/open": page(),
        "/behind": page(),  # listed, linked only from a page the crawl may not read
    }
    async with serve(lambda base: site(base, pages, listed=["/", "/behind"], robots=robots)) as s:
        audited = await crawl(tmp_path, f"{s.base}/")
    assert "/mine/page" not in s.hits
    assert s.hits["/all/page"] == 1  # RFC 9309 §2.2.1: its own group, not `*`
    found = coverage(audited)
    assert (found["blocked"], found["hidden"]) == (0, 1)
    # Google may read /mine/page (its group is `*`, which allows it): the crawl saw less than
    # Google, so it did not cover the site, and /behind is no orphan.
    assert found["complete"] is False
    assert codes_of(entry(audited, "/behind")) == []


async def test_a_disallow_for_everyone_leaves_the_crawl_complete(tmp_path: Path) -> None:
    pages = {"/": page("/private/x", "/a"), "/a": page(), "/lonely": page()}
    async with serve(lambda base: site(base, pages, listed=["/", "/lonely"])) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert "/private/x" not in served.hits
    found = coverage(audited)
    assert (found["blocked"], found["complete"]) == (1, True)
    assert codes_of(entry(audited, "/lonely")) == ["coverage.orphan"]


async def test_nofollow_links_are_not_followed_yet_are_links(tmp_path: Path) -> None:
    pages = {
        "/": page("/a", nofollow=["/quiet"]),
        "/a": page(),
        "/quiet": page("/only-from-quiet"),
        "/only-from-quiet": page(),
        "/meta": page("/never", head='<meta name="robots" content="nofollow">'),
    }
    listed = ["/", "/quiet"]
    async with serve(lambda base: site(base, pages, listed=listed)) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert served.hits["/quiet"] == 1  # by its check, as a listed URL: the crawl did not go
    assert "/only-from-quiet" not in served.hits
    quiet = entry(audited, "/quiet")
    assert codes_of(quiet) == []  # linked (nofollow): no orphan; checked as a listed URL
    assert quiet["crawl"] == {"depth": 1, "linked_from": quiet["crawl"]["linked_from"],
                              "links": None, "requested": False}  # fmt: skip
    assert coverage(audited)["nofollow"] == 1
    async with serve(lambda base: site(base, pages, listed=listed)) as served:
        await crawl(tmp_path, f"{served.base}/", crawl_nofollow=True)
    assert served.hits["/only-from-quiet"] == 1


async def test_a_nofollow_page_and_header_follow_nothing(tmp_path: Path) -> None:
    header = Page(200, b'<a href="/from-header">x</a>', {**HTML, "X-Robots-Tag": "nofollow"})
    pages = {
        "/": page("/meta", "/header"),
        "/meta": page("/from-meta", head='<meta name="robots" content="noindex, nofollow">'),
        "/header": header,
        "/from-meta": page(),
        "/from-header": page(),
    }
    async with serve(lambda base: site(base, pages, listed=["/"])) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert "/from-meta" not in served.hits
    assert "/from-header" not in served.hits
    assert coverage(audited)["nofollow"] == 2


async def test_links_resolve_against_base_and_the_final_url(tmp_path: Path) -> None:
    pages: dict[str, Route] = {
        "/": page("/moved", "shop/"),
        "/shop/": page("item", head='<base href="/catalog/">'),  # -> /catalog/item
        "/catalog/item": page("../about"),  # -> /about
        "/about": page(),
        "/moved": redirect(301, "/landed/"),
        "/landed/": page("next"),  # relative to where the redirect landed: /landed/next
        "/landed/next": page(),
    }
    async with serve(lambda base: site(base, pages, listed=["/"])) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    for path in ("/catalog/item", "/about", "/landed/next"):
        assert served.hits[path] == 1, path
    # Once at the end of /moved's redirect, once as a URL of its own (its own check).
    assert served.hits["/landed/"] == 2
    assert "/shop/item" not in served.hits
    assert coverage(audited)["complete"] is True


async def _calendar(request: web.Request) -> web.StreamResponse:
    """An endless calendar: each month links the next one, in two views."""
    month = int(request.path.rsplit("/", 1)[1])
    body = f'<a href="/cal/{month + 1}">next</a><a href="/cal/{month + 1}?view=week">week</a>'
    return web.Response(body=body.encode(), headers=HTML)


def calendar_site(base: str) -> dict[str, Route]:
    routes: dict[str, Route] = {f"/cal/{n}": _calendar for n in range(200)}
    return site(base, {"/": page("/cal/0"), **routes}, listed=["/", "/lonely"])


async def test_an_endless_calendar_stops_at_the_depth_bound(tmp_path: Path) -> None:
    async with serve(calendar_site) as served:
        audited = await crawl(tmp_path, f"{served.base}/", crawl_depth=5)
    found = coverage(audited)
    assert found["stopped_by"] == ["depth"]
    assert found["complete"] is False
    assert found["depth"] == 5
    assert "coverage.orphan" not in codes_of(entry(audited, "/lonely"))  # incomplete: no orphan
    assert audited.report["summary"]["by_code"].get("coverage.orphan") is None


async def test_an_endless_calendar_stops_at_the_page_bound(tmp_path: Path) -> None:
    async with serve(calendar_site) as served:
        audited = await crawl(tmp_path, f"{served.base}/", crawl_max=12)
    found = coverage(audited)
    assert found["stopped_by"] == ["pages"]
    assert found["crawled"] == 12
    assert sum(served.hits.get(f"/cal/{n}", 0) for n in range(200)) == 11
    assert "coverage.orphan" not in codes_of(entry(audited, "/lonely"))


async def test_a_page_that_cannot_be_read_leaves_no_orphan(tmp_path: Path) -> None:
    pages: dict[str, Route] = {"/": page("/broken"), "/broken": Page(503, b"down")}
    async with serve(lambda base: site(base, pages, listed=["/", "/lonely"])) as served:
        audited = await crawl(tmp_path, f"{served.base}/", retries=0)
    found = coverage(audited)
    assert (found["unread"], found["complete"]) == (1, False)
    assert "coverage.orphan" not in codes_of(entry(audited, "/lonely"))


async def test_the_coverage_reaches_the_csv_and_the_metrics(tmp_path: Path) -> None:
    pages = {"/": page("/b"), "/b": page()}
    async with serve(lambda base: site(base, pages, listed=["/"])) as served:
        await crawl(
            tmp_path,
            f"{served.base}/",
            csv=tmp_path / "csv",
            metrics=tmp_path / "run.prom",
        )
    with (tmp_path / "csv" / "urls.csv").open(newline="") as file:
        rows = {row["loc"].rsplit("/", 1)[1]: row for row in csv.DictReader(file)}
    assert (rows[""]["crawl_depth"], rows[""]["page_links"]) == ("0", "1")
    assert rows["b"]["crawl_depth"] == "1"
    assert rows["b"]["linked_from"].endswith("/")
    metrics = (tmp_path / "run.prom").read_text()
    assert 'coverage_urls{kind="crawled_only",target=' in metrics
    assert "sitemap_audit_crawl_complete{" in metrics


async def test_checker_processes_reuse_the_crawls_requests(tmp_path: Path) -> None:
    pages = {"/": page("/a"), "/a": page()}
    async with serve(lambda base: site(base, pages, listed=["/", "/a", "/lonely"])) as served:
        audited = await crawl(tmp_path, f"{served.base}/", workers=2)
    assert (served.hits["/"], served.hits["/a"], served.hits["/lonely"]) == (1, 1, 1)
    assert codes_of(entry(audited, "/lonely")) == ["coverage.orphan", "http.not_found"]


async def test_without_checks_the_crawls_answers_still_count(tmp_path: Path) -> None:
    pages = {"/": page("/a"), "/a": page()}
    async with serve(lambda base: site(base, pages, listed=["/a", "/lonely"])) as served:
        audited = await run_audit(tmp_path, f"{served.base}/", no_check=True, crawl=True)
    assert entry(audited, "/a")["status"] == 200
    assert "status" not in entry(audited, "/lonely")
    assert "/lonely" not in served.hits


@pytest.mark.slow
async def test_a_signal_during_the_crawl_writes_what_it_gathered(
    tmp_path: Path, engine: Engine
) -> None:
    async def stalled(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    pages: dict[str, Route] = {"/": page("/a", "/slow"), "/a": page(), "/slow": stalled}
    report_path = tmp_path / "r.json"
    async with serve(lambda base: site(base, pages, listed=["/", "/lonely"])) as served:
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "auditor", "--json", str(report_path), "--allow-private"],
            *["--timeout", "60", "--engine", engine, "--crawl", "--workers", "1"],
            f"{served.base}/",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        while "/slow" not in served.hits or "/a" not in served.hits:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        process.send_signal(signal.SIGTERM)
        returncode = await asyncio.wait_for(process.wait(), timeout=10)
    assert returncode == ExitCode.FAILED
    report = json.loads(report_path.read_text())
    assert report["complete"] is False
    found = report["summary"]["coverage"]
    assert found["stopped_by"] == ["interrupted"]
    assert found["complete"] is False
    assert found["crawled"] >= 2
    assert "coverage.orphan" not in report["summary"]["by_code"]


async def test_a_page_dropped_from_the_sitemaps_is_a_regression_on_its_url(
    tmp_path: Path,
) -> None:
    """--baseline: coverage findings are keyed by their URL, as a URL's other findings are."""
    listed = ["/", "/a", "/b"]

    def routes(base: str) -> dict[str, Route]:
        async def sitemap(request: web.Request) -> web.StreamResponse:
            body = site(base, {}, listed=listed)["/sitemap.xml"]
            assert isinstance(body, Page)
            return web.Response(body=body.body, content_type="application/xml")

        pages: dict[str, Route] = {"/": page("/a", "/b"), "/a": page(), "/b": page()}
        return site(base, pages, listed=listed) | {"/sitemap.xml": sitemap}

    async with serve(routes) as served:
        before = await crawl(tmp_path / "1", f"{served.base}/")
        listed.remove("/b")  # the next night's sitemap forgets a page the site still links
        after = await crawl(
            tmp_path / "2",
            f"{served.base}/",
            baseline=before.result.json_path,
            fail_on=FailOn.NEVER,
            fail_on_new=FailOn.WARNING,
        )
    assert codes_of(entry(after, "/b")) == ["coverage.not_in_sitemap"]
    diff = after.report["diff"]
    assert diff["regressions"] == 1
    [regression] = diff["regression_examples"]
    assert regression["subject"].endswith("/b")
    assert regression["codes"] == ["coverage.not_in_sitemap"]
    assert after.result.exit_code is ExitCode.FINDINGS

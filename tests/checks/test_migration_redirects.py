"""A migration's redirects: listed URLs that move to another host, port or name, never hang.

The most common redirect there is: a sitemap still listing the old host's (or http://) URLs
after a move. Each check opens the listed URL and follows it to the new host; the robots.txt of
that host must be known before the hop opens it (auditor.net.opener.BeforeHop), never asked for
while the answer holds one of the new host's slots: with as many such checks in flight as
`--per-host` allows, every check waited for a slot only another waiting check could free.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from auditor.config import FailOn
from auditor.demo.documents import Page, redirect, url, urlset, xml_page
from auditor.demo.server import Route, Served, serve
from auditor.errors import ExitCode
from tests.helpers import Audited, run_audit

pytestmark = pytest.mark.usefixtures("engine")

URLS = 40
OK = Page(200, b"<html><head><title>A page</title></head></html>", {"Content-Type": "text/html"})
# A hang fails the test instead of CI: a healthy run of these sites takes about a second.
LIMIT_S = 60.0
MOVED = ["redirect.other_host"]  # one finding per moved URL (docs/explanation/rules.md#redirects)


def robots(*, disallow: str = "") -> Page:
    rules = f"User-agent: *\nDisallow: {disallow}\n" if disallow else "User-agent: *\n"
    return Page(200, rules.encode())


def new_site(_base: str, *, disallow: str = "") -> dict[str, Route]:
    """Where the pages went: each answers 200."""
    table: dict[str, Route] = {f"/p/{n}": OK for n in range(URLS)}
    return table | {"/robots.txt": robots(disallow=disallow)}


def old_site(base: str, *, to: str) -> dict[str, Route]:
    """The old host: its sitemap lists its own URLs, each moved (301) to the same path at `to`."""
    table: dict[str, Route] = {f"/p/{n}": redirect(301, f"{to}/p/{n}") for n in range(URLS)}
    table["/sitemap.xml"] = xml_page(urlset([url(f"{base}/p/{n}") for n in range(URLS)]))
    table["/robots.txt"] = robots()
    return table


@asynccontextmanager
async def sites(*routes: Callable[[list[str]], Mapping[str, Route]]) -> AsyncIterator[list[Served]]:
    """Serve each route table on its own port; each is built with the bases of those after it."""
    served: list[Served] = []
    async with AsyncExitStack() as stack:
        for make in reversed(routes):
            later = [site.base for site in served]
            site = await stack.enter_async_context(serve(partial(_built, make, later)))
            served.insert(0, site)
        yield served


def _built(
    make: Callable[[list[str]], Mapping[str, Route]], later: list[str], _base: str
) -> Mapping[str, Route]:
    return make(later)


async def audited(tmp_path: Path, sitemap: str, **overrides: Any) -> Audited:
    run = run_audit(tmp_path, sitemap, no_check=False, **overrides)
    return await asyncio.wait_for(run, LIMIT_S)


def codes_by_loc(run: Audited) -> dict[str, list[str]]:
    return {loc: sorted(codes) for loc, codes in run.url_codes()}


@pytest.mark.parametrize("per_host", [1, 2, 8])
async def test_urls_moved_to_another_port_are_all_checked(tmp_path: Path, per_host: int) -> None:
    """40 URLs 301-ing from one port to another hung at --per-host 1, 2 and 8."""
    async with serve(new_site) as new, serve(lambda b: old_site(b, to=new.base)) as old:
        run = await audited(tmp_path, f"{old.base}/sitemap.xml", per_host=per_host)
        hits = dict(new.hits)
    assert run.report["complete"] is True
    assert run.report["summary"]["checked"] == URLS
    assert all(hits.get(f"/p/{n}", 0) >= 1 for n in range(URLS))
    assert hits["/robots.txt"] == 1  # learnt once, before the first hop to the new host
    assert set(map(tuple, codes_by_loc(run).values())) == {tuple(MOVED)}


@pytest.mark.slow
@pytest.mark.parametrize("per_host", [1, 8])
async def test_checker_processes_follow_moves_to_another_port(
    tmp_path: Path, per_host: int
) -> None:
    """The same with --workers 2: each checker process learns the new host's robots.txt."""
    async with serve(new_site) as new, serve(lambda b: old_site(b, to=new.base)) as old:
        run = await audited(tmp_path, f"{old.base}/sitemap.xml", per_host=per_host, workers=2)
    assert run.report["complete"] is True
    assert run.report["summary"]["checked"] == URLS
    assert set(map(tuple, codes_by_loc(run).values())) == {tuple(MOVED)}


@pytest.mark.parametrize("per_host", [1, 2])
async def test_a_chain_across_three_hosts_ends(tmp_path: Path, per_host: int) -> None:
    """old (302) -> middle (301) -> new: two other hosts' robots.txt on the way of each check."""

    def moved(status: int, later: list[str]) -> dict[str, Route]:
        table: dict[str, Route] = {"/robots.txt": robots()}
        return table | {f"/p/{n}": redirect(status, f"{later[0]}/p/{n}") for n in range(URLS)}

    first, middle = partial(moved, 302), partial(moved, 301)

    async with sites(first, middle, lambda _later: new_site("")) as (start, _middle, new):

        def listing(base: str) -> dict[str, Route]:
            locs = [url(f"{start.base}/p/{n}") for n in range(URLS)]
            return {"/sitemap.xml": xml_page(urlset(locs))}

        async with serve(listing) as index:
            # the sitemap on another host than its URLs: cross-submission is not the point
            run = await audited(tmp_path, f"{index.base}/sitemap.xml", per_host=per_host)
        hits = dict(new.hits)
    assert run.report["summary"]["checked"] == URLS
    assert all(hits.get(f"/p/{n}", 0) >= 1 for n in range(URLS))
    for entry in run.report["urls"]:
        assert [hop["status"] for hop in entry["redirects"]] == [302, 301]
        assert entry["final_status"] == 200


@pytest.mark.parametrize("per_host", [1, 8])
async def test_a_move_to_another_name_for_the_same_address_ends(
    tmp_path: Path, per_host: int
) -> None:
    """127.0.0.1 -> localhost: one server, two hosts to the auditor (and to its slots)."""

    async def page(request: web.Request) -> web.StreamResponse:
        if request.host.startswith("localhost:"):
            return web.Response(text="<html><head><title>A page</title></head></html>")
        raise web.HTTPMovedPermanently(f"http://localhost:{request.url.port}{request.path}")

    def both(base: str) -> dict[str, Route]:
        return old_site(base, to="") | {f"/p/{n}": page for n in range(URLS)}

    async with serve(both) as site:
        new = site.base.replace("127.0.0.1", "localhost")
        run = await audited(tmp_path, f"{site.base}/sitemap.xml", per_host=per_host)
    assert run.report["summary"]["checked"] == URLS
    for entry in run.report["urls"]:
        assert entry["final_url"].startswith(new)
    assert set(map(tuple, codes_by_loc(run).values())) == {tuple(MOVED)}


async def test_a_move_into_a_path_the_new_host_disallows_is_blocked(tmp_path: Path) -> None:
    """The new host's robots.txt judges where the moved URLs land (rules.md#robots-blocked)."""
    async with (
        serve(lambda b: new_site(b, disallow="/p/")) as new,
        serve(lambda b: old_site(b, to=new.base)) as old,
    ):
        run = await audited(tmp_path, f"{old.base}/sitemap.xml", per_host=1)
    assert run.report["summary"]["checked"] == URLS
    for codes in codes_by_loc(run).values():
        assert "url.blocked_by_robots" in codes


async def test_one_finding_per_moved_url_is_no_change_from_a_baseline_of_two(
    tmp_path: Path,
) -> None:
    """A baseline made when a moved URL had redirect.permanent beside redirect.other_host.

    The comparison reads it as this version reports it: nothing fixed, nothing new, no
    regression, however low --fail-on-new is.
    """
    async with serve(new_site) as new, serve(lambda b: old_site(b, to=new.base)) as old:
        first = await audited(tmp_path / "first", f"{old.base}/sitemap.xml")
        before = first.report
        for entry in before["urls"]:  # as the version before wrote it: two findings
            [moved] = entry["findings"]
            assert moved["code"] == "redirect.other_host"
            assert (moved["detail"]["status"], moved["detail"]["permanent"]) == (301, True)
            entry["findings"].append({**moved, "code": "redirect.permanent"})
        before["summary"]["by_code"]["redirect.permanent"] = URLS
        baseline = tmp_path / "baseline.json"
        baseline.write_text(json.dumps(before))
        run = await audited(
            tmp_path / "second",
            f"{old.base}/sitemap.xml",
            baseline=baseline,
            fail_on_new=FailOn.NOTICE,
        )
    diff = run.report["diff"]
    assert (diff["regressions"], diff["urls_changed"]) == (0, 0)
    assert (diff["new_findings"], diff["resolved_findings"]) == ({}, {})
    assert run.result.exit_code == ExitCode.OK  # warnings at --fail-on error: it passes

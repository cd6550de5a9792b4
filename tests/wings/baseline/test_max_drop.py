"""`--max-drop`: a sitemap whose URLs are listed nowhere any more, beyond a threshold, regresses.

On loopback, two runs a night apart with the real comparison: an emptied `<urlset>` that listed
1,000 URLs is a regression at the default `--fail-on-new error`; URLs moved to another sitemap,
or a few dead pages taken out of a small one, are not (docs/explanation/rules.md#urls-dropped).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from auditor.config import FailOn
from auditor.demo.documents import url, urlset
from auditor.demo.server import Route, serve
from auditor.errors import ExitCode
from auditor.wings.baseline.compare import DropLimit
from tests.helpers import Audited, run_audit

DROPPED = "sitemap.urls_dropped"


class Sitemaps:
    """Two sitemaps behind an index; what each lists is changed between nights."""

    def __init__(self, a: int, b: int = 0) -> None:
        self.listed = {"a": [f"/a{n}" for n in range(a)], "b": [f"/b{n}" for n in range(b)]}

    def routes(self, base: str) -> dict[str, Route]:
        def sitemap(name: str) -> Route:
            async def answer(_request: web.Request) -> web.StreamResponse:
                body = urlset([url(base + path) for path in self.listed[name]])
                return web.Response(text=body, content_type="application/xml")

            return answer

        async def index(_request: web.Request) -> web.StreamResponse:
            entries = "".join(f"<sitemap><loc>{base}/{n}.xml</loc></sitemap>" for n in "ab")
            body = (
                '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex '
                f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</sitemapindex>'
            )
            return web.Response(text=body, content_type="application/xml")

        return {"/index.xml": index, "/a.xml": sitemap("a"), "/b.xml": sitemap("b")}


async def two_nights(tmp_path: Path, site: Sitemaps, change: Any, **options: Any) -> Audited:
    """Night 1 as `site` lists; `change(site)`; night 2 against night 1 as its baseline."""
    async with serve(site.routes) as served:
        target = f"{served.base}/index.xml"
        before = await run_audit(tmp_path / "1", target)
        change(site)
        return await run_audit(tmp_path / "2", target, baseline=before.result.json_path, **options)


def regressed(audited: Audited) -> list[tuple[str, str, list[str]]]:
    diff = audited.report["diff"]
    return [
        (r["kind"], r["subject"].rsplit("/", 1)[1], r["codes"]) for r in diff["regression_examples"]
    ]


async def test_an_emptied_sitemap_of_a_thousand_urls_regresses(tmp_path: Path) -> None:
    def empty(site: Sitemaps) -> None:
        site.listed["a"] = []

    audited = await two_nights(tmp_path, Sitemaps(1_000), empty)
    diff = audited.report["diff"]
    assert audited.result.exit_code == ExitCode.FINDINGS  # the default --fail-on-new error
    assert diff["regressions"] == 1
    assert regressed(audited) == [("sitemap", "a.xml", [DROPPED])]
    [drop] = diff["sitemaps_dropping"]
    assert (drop["baseline_urls"], drop["dropped"]) == (1_000, 1_000)
    assert diff["new_findings"][DROPPED] == 1
    assert audited.result.verdict.line.startswith("FAIL: 1 regression since the baseline")


async def test_urls_moved_to_another_sitemap_are_not_dropped(tmp_path: Path) -> None:
    def move(site: Sitemaps) -> None:
        site.listed["b"], site.listed["a"] = site.listed["a"], []

    audited = await two_nights(tmp_path, Sitemaps(1_000), move)
    assert audited.report["diff"]["regressions"] == 0
    assert audited.report["diff"]["sitemaps_dropping"] == []
    assert audited.result.exit_code == ExitCode.OK


async def test_dead_pages_taken_out_of_a_small_sitemap_are_a_fix(tmp_path: Path) -> None:
    def prune(site: Sitemaps) -> None:
        site.listed["a"] = site.listed["a"][3:]

    audited = await two_nights(tmp_path, Sitemaps(20), prune)
    assert audited.report["diff"]["regressions"] == 0
    # A small site that wants it: every loss over 10 %.
    watched = await two_nights(tmp_path / "watched", Sitemaps(20), prune, max_drop_urls=0)
    assert regressed(watched) == [("sitemap", "a.xml", [DROPPED])]


@pytest.mark.parametrize(("dropped", "regresses"), [(100, False), (101, True)])
async def test_the_threshold_is_the_larger_of_the_two(
    tmp_path: Path, dropped: int, regresses: bool
) -> None:
    """1,000 URLs: 10 % and 100 URLs are both 100; more than that regresses."""

    def drop(site: Sitemaps) -> None:
        site.listed["a"] = site.listed["a"][dropped:]

    audited = await two_nights(tmp_path, Sitemaps(1_000), drop)
    assert audited.report["diff"]["regressions"] == int(regresses)


async def test_fail_on_new_never_and_accepted_drops_do_not_regress(tmp_path: Path) -> None:
    def empty(site: Sitemaps) -> None:
        site.listed["a"] = []

    audited = await two_nights(tmp_path, Sitemaps(200), empty, fail_on_new=FailOn.NEVER)
    assert audited.report["diff"]["regressions"] == 0
    assert len(audited.report["diff"]["sitemaps_dropping"]) == 1  # said, not failing
    known = tmp_path / "known.txt"
    known.write_text(f"{DROPPED}\n")
    accepted = await two_nights(tmp_path / "accepted", Sitemaps(200), empty, accept_file=known)
    assert accepted.report["diff"]["regressions"] == 0


@pytest.mark.parametrize(
    ("listed", "dropped", "limit", "exceeded"),
    [
        (1_000, 1_000, DropLimit(), True),
        (1_000, 100, DropLimit(), False),  # exactly 10 % and exactly 100: not more
        (1_000, 101, DropLimit(), True),
        (50, 50, DropLimit(), False),  # an emptied sitemap of 50: not over 100 URLs
        (50, 50, DropLimit(urls=0), True),
        (100_000, 5_000, DropLimit(), False),  # 5 %, though over 100 URLs
        (100_000, 10_001, DropLimit(), True),
        (1_000, 1_000, DropLimit(share_pct=100.0), False),  # --max-drop 100: never
        (0, 0, DropLimit(urls=0, share_pct=0.0), False),  # nothing dropped, nothing said
    ],
)
def test_drop_limit(listed: int, dropped: int, limit: DropLimit, exceeded: bool) -> None:
    assert limit.exceeded(listed, dropped) is exceeded

"""Runs compared URL by URL: each change a nightly job must catch, on a loopback site.

Every case runs two audits of the same site ("nights") with something changed in between, and
reads the regression count back from every output: the JSON, the metrics, JUnit, the verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auditor.config import FailOn
from auditor.demo.server import serve
from auditor.errors import ExitCode
from tests.helpers import Audited, run_audit
from tests.wings.baseline.nightly_site import NightlySite, outputs, paths


async def nights(
    tmp_path: Path, site: NightlySite, change: Any, **options: Any
) -> tuple[Audited, Audited]:
    """Audit the site, let `change(site)` change it, audit it again against the first report."""
    first_json = tmp_path / "1" / "r.json"
    async with serve(site.routes) as served:
        target = f"{served.base}/sitemap.xml"
        first = await run_audit(tmp_path / "1", target, no_check=False, json=first_json)
        change(site)
        second = await run_audit(
            tmp_path / "2",
            target,
            no_check=False,
            baseline=first_json,
            metrics=tmp_path / "2" / "r.prom",
            junit=tmp_path / "2" / "junit.xml",
            **options,
        )
    return first, second


def regressions_everywhere(audited: Audited, tmp_path: Path) -> int:
    """The one regression count, the same in the JSON, metrics, JUnit and the verdict."""
    said = outputs(
        audited.result.json_path, tmp_path / "2" / "r.prom", tmp_path / "2" / "junit.xml"
    )
    count = said.json
    assert said.metrics == said.junit == count == audited.result.decision.regressions
    noun = "regression" if count == 1 else "regressions"
    if count:
        assert audited.result.verdict.line.startswith(f"FAIL: {count} {noun} since the baseline")
    return count


async def test_ten_pages_gaining_noindex_while_ten_lose_it(tmp_path: Path) -> None:
    """Net counts say nothing changed; URL by URL, ten pages cannot be indexed any more."""
    site = NightlySite(paths("p", 30))
    site.set(paths("p", 10), noindex="meta")

    def swap(site: NightlySite) -> None:
        site.set(paths("p", 10))
        site.set(paths("p", 20)[10:], noindex="meta")

    _, second = await nights(tmp_path, site, swap, fail_on=FailOn.NEVER)
    diff = second.report["diff"]
    assert (diff["new_findings"], diff["resolved_findings"]) == (
        {"url.noindex": 10},
        {"url.noindex": 10},
    )
    assert (diff["became_not_indexable"], diff["became_indexable"]) == (10, 10)
    assert regressions_everywhere(second, tmp_path) == 10  # became not indexable: a warning, too
    assert second.result.exit_code == ExitCode.FINDINGS
    changed = {entry["url"].rsplit("/", 1)[1]: entry for entry in diff["urls_changed_examples"]}
    assert len(changed) == diff["urls_changed"] == 20
    assert {"field": "indexability", "before": "indexable", "after": "noindex_meta"} in changed[
        "p15"
    ]["changes"]
    assert changed["p15"]["regression"]
    assert not changed["p5"]["regression"]


async def test_a_dead_url_dropped_and_another_listed(tmp_path: Path) -> None:
    site = NightlySite(["/ok", "/dead1"])
    site.set(["/dead1"], status=404)
    site.add("/dead2", status=404)

    def migrate(site: NightlySite) -> None:
        site.listed = ["/ok", "/dead2"]

    _, second = await nights(tmp_path, site, migrate, fail_on=FailOn.NEVER)
    diff = second.report["diff"]
    assert (diff["urls_added"], diff["urls_removed"]) == (1, 1)
    assert diff["new_findings"] == diff["resolved_findings"] == {"http.not_found": 1}
    assert regressions_everywhere(second, tmp_path) == 1
    [example] = diff["regression_examples"]
    assert example["subject"].endswith("/dead2")
    assert second.result.exit_code == ExitCode.FINDINGS


async def test_changes_that_keep_the_status_class(tmp_path: Path) -> None:
    """200 to noindex, a new canonical, newly disallowed, a redirect that lands elsewhere."""
    site = NightlySite(["/header", "/canonical", "/blocked", "/moved", "/a", "/b"])
    site.set(["/moved"], location="/a")

    def change(site: NightlySite) -> None:
        site.set(["/header"], noindex="header")
        site.set(["/canonical"], canonical="/a")
        site.disallow = ["/blocked"]
        site.set(["/moved"], location="/b")

    _, second = await nights(tmp_path, site, change)
    diff = second.report["diff"]
    fields = {
        entry["url"].rsplit("/", 1)[1]: {
            c["field"]: (c["before"], c["after"]) for c in entry["changes"]
        }
        for entry in diff["urls_changed_examples"]
    }
    assert fields["header"]["indexability"] == ("indexable", "noindex_header")
    assert fields["canonical"]["indexability"] == ("indexable", "canonicalised")
    assert fields["canonical"]["canonical"] == ("none", f"{site.base}/a")
    assert fields["blocked"]["indexability"] == ("indexable", "blocked_by_robots")
    assert fields["moved"] == {"final_url": (f"{site.base}/a", f"{site.base}/b")}
    assert diff["urls_changed"] == 4
    # Three became not indexable; a redirect that lands elsewhere stays a redirect.
    assert regressions_everywhere(second, tmp_path) == 3


async def test_two_deleted_pages_are_two_regressions(tmp_path: Path) -> None:
    site = NightlySite(paths("p", 5))

    def delete(site: NightlySite) -> None:
        site.set(["/p1", "/p2"], status=404)

    _, second = await nights(tmp_path, site, delete)
    assert regressions_everywhere(second, tmp_path) == 2
    said = outputs(second.result.json_path, tmp_path / "2" / "r.prom", tmp_path / "2" / "junit.xml")
    sitemap = "/sitemap.xml"  # a case's file: the sitemap URL's path
    assert sorted(said.junit_cases) == [
        (f"{site.base}/p1 http.not_found", sitemap, "4"),  # line 1: the XML declaration
        (f"{site.base}/p2 http.not_found", sitemap, "5"),
    ]
    assert second.report["diff"]["urls_broken"] == 2


async def test_thirty_pages_going_to_404_are_thirty_regressions(tmp_path: Path) -> None:
    site = NightlySite(paths("p", 40))

    def delete(site: NightlySite) -> None:
        site.set(paths("p", 30), status=404)

    _, second = await nights(tmp_path, site, delete, fail_on=FailOn.NEVER)
    assert regressions_everywhere(second, tmp_path) == 30


async def test_a_sitemap_whose_urls_all_redirect_says_none_can_be_indexed(tmp_path: Path) -> None:
    site = NightlySite(paths("old", 20))
    site.add(*paths("new", 20))
    for n in range(20):
        site.set([f"/old{n}"], location=f"/new{n}")
    async with serve(site.routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml", no_check=False)
    indexability = audited.report["summary"]["indexability"]
    assert indexability == {
        "indexable": 0,
        "not_indexable": 20,
        "not_checked": 0,
        "by_reason": {"redirected": 20},
    }
    assert {entry["indexability_reason"] for entry in audited.report["urls"]} == {"redirected"}
    # No error, yet the verdict and the report say how bad it is.
    assert audited.report["summary"]["by_severity"]["error"] == 0
    assert audited.result.verdict.line.endswith("; 20 of 20 listed URLs cannot be indexed")
    page = audited.result.html_path.read_text()
    assert "0 of 20" in page
    assert "20 listed URLs cannot be indexed" in page

"""The notebook's frames agree: with the report, and with each other.

Two nights of a loopback site with --history and --baseline: a page that broke (a regression),
one that broke but is a known issue (--accept-file). `changes_frame()` with no argument is the
report's own comparison; every finding row names its sitemap; every time is a datetime; a
finding's detail is a dict; the frames' categories are one dtype wherever they are.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import auditor
from auditor.api.dataframes import categories
from auditor.demo.server import serve
from auditor.errors import ReportReadError
from tests.wings.baseline.nightly_site import NightlySite

QUICK = {"timeout": 2, "retries": 0, "allow_private": True}
pd = pytest.importorskip("pandas")


async def two_nights(tmp_path: Path) -> tuple[auditor.Report, auditor.Report]:
    site = NightlySite(["/ok", "/broken", "/known", "/moved", "/target"])
    site.set(["/moved"], location="/target")
    accept = tmp_path / "known.txt"
    accept.write_text("http.server_error /known$\n")
    history = tmp_path / "history.sqlite"
    async with serve(site.routes) as served:
        target = f"{served.base}/sitemap.xml"
        first = await auditor.audit_site(target, json=tmp_path / "1.json", history=history, **QUICK)
        site.set(["/broken"], status=404)
        site.set(["/known"], status=500)
        second = await auditor.audit_site(
            target,
            json=tmp_path / "2.json",
            history=history,
            baseline=tmp_path / "1.json",
            fail_on_new="warning",
            accept_file=accept,
            **QUICK,
        )
    return first, auditor.read_report(second.json_path)


@pytest.mark.slow
async def test_the_frames_agree_with_the_report_and_each_other(tmp_path: Path) -> None:
    first, report = await two_nights(tmp_path)
    diff = report._reader.diff()
    assert diff is not None
    assert diff["urls_broken"] == 1  # /broken; /known is accepted
    changes = await asyncio.to_thread(report.changes_frame)  # the report's own baseline
    assert int(changes["regression"].sum()) == diff["urls_broken"]
    rows = {row.url.rsplit("/", 1)[1]: row for row in changes.itertuples()}
    assert (rows["broken"].regression, rows["known"].regression) == (True, False)
    assert rows["broken"].sitemap.endswith("/sitemap.xml")
    assert (rows["broken"].indexability_before, rows["broken"].indexability_after) == (
        "indexable",
        "client_error",
    )
    shared = categories()
    assert changes["indexability_after"].dtype == shared["verdict"]
    assert changes["change"].dtype == shared["change"]
    # Another level, or another baseline, on request.
    looser = await asyncio.to_thread(report.changes_frame, first.json_path, fail_on_new="never")
    assert not looser["regression"].any()

    urls = await asyncio.to_thread(report.urls_frame)
    for column in ("lastmod", "checked_at"):
        assert isinstance(urls[column].dtype, pd.DatetimeTZDtype), column
    assert urls["checked_at"].notna().all()  # every URL was requested, with --history
    assert urls["worst_severity"].dtype == shared["severity"]
    assert urls["indexability_reason"].dtype == shared["reason"]

    findings = await asyncio.to_thread(report.findings_frame)
    assert findings["sitemap"][findings["about"].isin(["url", "sitemap"])].notna().all()
    assert findings["severity"].dtype == urls["worst_severity"].dtype
    assert findings["code"].dtype == shared["code"]
    moved = findings[findings["code"] == "redirect.permanent"]["detail"].iloc[0]
    assert isinstance(moved, dict)
    assert moved["status"] == 301
    assert findings[findings["url"].str.endswith("/known", na=False)]["accepted"].all()

    # The how-to's groupby, and frames that merge and concatenate keeping their categories.
    by_sitemap = findings.groupby(["sitemap", "code"], observed=True).size()
    assert int(by_sitemap.sum()) == int(findings["sitemap"].notna().sum())
    joined = findings.merge(urls, left_on="url", right_on="loc", how="inner")
    assert joined["severity"].dtype == joined["worst_severity"].dtype == shared["severity"]
    both = pd.concat([findings, await asyncio.to_thread(first.findings_frame)])
    assert both["code"].dtype == shared["code"]


async def test_changes_frame_says_what_it_needs_when_the_report_has_no_diff(
    tmp_path: Path,
) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://example.com/a</loc></url></urlset>"
    )
    result = await auditor.audit_site(sitemap, no_check=True, json=tmp_path / "r.json")
    with pytest.raises(ReportReadError):
        await asyncio.to_thread(result.changes_frame)

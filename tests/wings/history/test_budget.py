"""The request budget across nights: which URLs each run requests, and what it carries.

Each test audits a loopback site night after night (the audit's clock a day later each
time), with the same history file; the site counts the requests each page gets. The order
the budget must follow: due under --max-age, lastmod changed, never checked, failed or
changed at the last request, then the oldest (docs/how-to/big-sites.md).
"""

from __future__ import annotations

import csv
from pathlib import Path

from auditor.demo.server import serve
from auditor.errors import ExitCode
from tests.wings.history.site import HistorySite, audit_night, entries


def paths(*numbers: int) -> set[str]:
    return {f"/p{n}" for n in numbers}


async def test_never_checked_urls_first_then_the_oldest(tmp_path: Path) -> None:
    site = HistorySite(10)
    history = tmp_path / "h.sqlite"
    asked = []
    async with serve(site.routes) as served:
        for number in range(4):
            audited = await audit_night(tmp_path, served.base, number, history=history, budget=4)
            asked.append(site.take_requests())
            assert audited.report["summary"]["checked"] == 4
    # The sitemap's order among the never checked; then the oldest requests first.
    assert asked == [paths(0, 1, 2, 3), paths(4, 5, 6, 7), paths(8, 9, 0, 1), paths(2, 3, 4, 5)]
    tiers = audited.report["summary"]["history"]["by_tier"]
    assert tiers == {"oldest": 4}


async def test_every_url_is_requested_once_within_its_share_of_nights(tmp_path: Path) -> None:
    site = HistorySite(25)
    history = tmp_path / "h.sqlite"
    asked: list[set[str]] = []
    async with serve(site.routes) as served:
        for number in range(5):  # 25 URLs, 5 a night: each once
            await audit_night(tmp_path, served.base, number, history=history, budget=5)
            asked.append(site.take_requests())
    assert [len(night) for night in asked] == [5] * 5
    assert set().union(*asked) == set(site.pages)


async def test_a_url_whose_lastmod_changed_is_requested_the_night_it_changes(
    tmp_path: Path,
) -> None:
    site = HistorySite(10)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        await audit_night(tmp_path, served.base, 0, history=history)  # every URL
        site.take_requests()
        site.change("/p7", status=404, lastmod="2026-11-24")
        audited = await audit_night(tmp_path, served.base, 1, history=history, budget=1)
    assert site.take_requests() == paths(7)
    assert entries(audited)["/p7"]["status"] == 404  # found the night it was made
    assert audited.report["summary"]["history"]["by_tier"] == {"lastmod_changed": 1}


async def test_a_url_never_checked_whose_lastmod_changed_goes_before_the_others(
    tmp_path: Path,
) -> None:
    site = HistorySite(10)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        await audit_night(tmp_path, served.base, 0, history=history, budget=2)  # /p0, /p1
        site.take_requests()
        site.change("/p9", noindex=True, lastmod="2026-11-24")
        audited = await audit_night(tmp_path, served.base, 1, history=history, budget=2)
    assert site.take_requests() == paths(9, 2)
    assert entries(audited)["/p9"]["indexability_reason"] == "noindex_meta"


async def test_a_url_that_failed_goes_before_the_oldest(tmp_path: Path) -> None:
    site = HistorySite(6)
    site.change("/p4", status=500)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        await audit_night(tmp_path, served.base, 0, history=history)
        site.take_requests()
        audited = await audit_night(tmp_path, served.base, 1, history=history, budget=1)
    assert site.take_requests() == paths(4)
    assert audited.report["summary"]["history"]["by_tier"] == {"failed_or_changed": 1}


async def test_a_url_that_changed_at_its_last_request_goes_before_the_oldest(
    tmp_path: Path,
) -> None:
    site = HistorySite(6)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        await audit_night(tmp_path, served.base, 0, history=history)
        site.change("/p2", noindex=True)  # no lastmod change: found when next requested
        await audit_night(tmp_path, served.base, 1, history=history)
        site.take_requests()
        site.change("/p2", noindex=False)
        audited = await audit_night(tmp_path, served.base, 2, history=history, budget=1)
    assert site.take_requests() == paths(2)
    assert entries(audited)["/p2"]["indexability"] == "indexable"


async def test_due_urls_come_first_and_a_short_budget_says_so(tmp_path: Path) -> None:
    site = HistorySite(8)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        await audit_night(tmp_path, served.base, 0, history=history, budget=4)  # /p0-/p3
        site.take_requests()
        audited = await audit_night(
            tmp_path, served.base, 3, history=history, budget=2, max_age_days=3
        )
    # Three days old: due; only two fit, though never-checked URLs wait too.
    assert site.take_requests() == paths(0, 1)
    said = audited.report["summary"]["history"]
    assert (said["max_age_exceeded"], said["by_tier"]) == (2, {"due": 2})
    [note] = audited.report["run_findings"]
    assert (note["code"], note["detail"]["urls"]) == ("run.max_age_exceeded", 2)
    assert audited.codes()["run.max_age_exceeded"] == 1


async def test_a_url_is_due_half_a_day_before_its_max_age(tmp_path: Path) -> None:
    """Ages count in days, rounded: tonight's job may start a little before last week's."""
    site = HistorySite(4)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        await audit_night(tmp_path, served.base, 0, history=history)
        site.take_requests()
        early = await audit_night(
            tmp_path, served.base, 1.4, history=history, budget=0, max_age_days=2
        )
        audited = await audit_night(
            tmp_path, served.base, 1.6, history=history, budget=4, max_age_days=2
        )
    assert early.report["summary"]["history"]["max_age_exceeded"] == 0
    assert audited.report["summary"]["history"]["by_tier"] == {"due": 4}


async def test_carried_verdicts_keep_their_age_and_only_fresh_ones_gate_the_run(
    tmp_path: Path,
) -> None:
    site = HistorySite(5)
    site.change("/p3", status=404)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        first = await audit_night(tmp_path, served.base, 0, history=history)
        site.take_requests()
        carried = await audit_night(
            tmp_path, served.base, 3, history=history, budget=0, csv=tmp_path / "csv"
        )
    assert site.take_requests() == set()
    assert first.result.exit_code is ExitCode.FINDINGS  # the 404, found tonight
    # Three nights later, nothing requested: every verdict is night 0's, with its age.
    by_path = entries(carried)
    assert {entry["checked_at"] for entry in by_path.values()} == {"2026-11-23T12:00:00Z"}
    assert all(entry["carried"] for entry in by_path.values())
    assert (by_path["/p3"]["status"], by_path["/p3"]["indexability_reason"]) == (
        404,
        "client_error",
    )
    summary = carried.report["summary"]
    assert (summary["checked"], summary["by_code"], summary["indexability"]["not_checked"]) == (
        0,
        {},
        5,
    )
    known = summary["history"]["last_known"]
    assert (known["urls"], known["carried"], known["by_age_days"]) == (5, 5, {"3": 5})
    assert (known["not_indexable"], known["by_code"]) == (1, {"http.not_found": 1})
    assert summary["history"]["carried"] == 5
    assert carried.result.exit_code is ExitCode.OK  # what was not requested tonight gates nothing
    with (tmp_path / "csv" / "urls.csv").open(newline="") as file:
        rows = list(csv.DictReader(file))
    assert {(row["carried"], row["checked_at"]) for row in rows} == {
        ("true", "2026-11-23T12:00:00Z")
    }


async def test_a_url_never_checked_and_not_requested_has_no_verdict(tmp_path: Path) -> None:
    site = HistorySite(3)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        audited = await audit_night(tmp_path, served.base, 0, history=history, budget=1)
    left = [entry for path, entry in entries(audited).items() if path != "/p0"]
    assert [("status" in entry, entry["indexability"]) for entry in left] == [
        (False, "not_checked")
    ] * 2
    assert audited.report["summary"]["history"]["never_checked"] == 2


async def test_regressions_come_from_fresh_checks_against_the_last_known_verdict(
    tmp_path: Path,
) -> None:
    site = HistorySite(6)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        zero = await audit_night(tmp_path, served.base, 0, history=history)
        site.change("/p1", status=404, lastmod="2026-11-24")
        site.change("/p2", noindex=True)  # silently: its lastmod stays
        one = await audit_night(
            tmp_path, served.base, 1, history=history, budget=1, baseline=zero.result.json_path
        )
        two = await audit_night(
            tmp_path, served.base, 2, history=history, budget=6, baseline=one.result.json_path
        )
    # Night 1 requests /p1 only: its 404 is the night's regression; /p2 is carried, unseen.
    assert entries(one)["/p2"]["carried"] is True
    assert one.report["diff"]["urls_broken_examples"] == [f"{served.base}/p1"]
    assert one.report["diff"]["regressions"] == 1
    # Night 2 requests every URL: /p2 is held against night 1's carried verdict (indexable).
    assert two.report["diff"]["urls_broken_examples"] == [f"{served.base}/p2"]
    assert two.report["diff"]["regressions"] == 1

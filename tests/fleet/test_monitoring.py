"""Monitoring at fleet scale: `--baseline` per site, the metrics' last success, a stopped fleet."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from auditor.demo.documents import Page
from auditor.errors import ExitCode
from auditor.fleet.dashboards import FleetRun, write_fleet_metrics
from auditor.fleet.sites import FailureKind, SiteFailure, SiteOutcome
from auditor.results.verdict import Outcome
from tests.fleet.helpers import check_named_reports, read_summary, run_fleet_command, toml_fleet
from tests.fleet.sites import fleet_of
from tests.fleet.test_summary import done, site
from tests.helpers import validate_report

pytestmark = pytest.mark.slow  # fleets on a LocalCluster

STOP_WAIT_S = 60.0  # generous: the machine is shared
ENDED_S = 2.0  # from a site's last report written to its task's end known to the fleet


async def test_each_site_is_compared_with_its_own_previous_report(tmp_path: Path) -> None:
    async with fleet_of([("shop", "healthy"), ("blog", "healthy"), ("new", "healthy")]) as sites:
        shop, blog, new = sites
        common = ["--fleet-workers", "1", "--timeout", "10", "--retries", "0", "--quiet"]
        first = toml_fleet(tmp_path / "first.toml", [shop, blog], {})
        code = await run_fleet_command(
            ["--fleet", str(first), "--out", str(tmp_path / "a"), *common]
        )
        assert code == ExitCode.OK
        before = next((tmp_path / "a").glob("fleet-*.json"))
        blog.routes["/b"] = blog.routes["/c"] = Page(404, b"gone")
        second = toml_fleet(tmp_path / "second.toml", [shop, blog, new], {})
        argv = ["--fleet", str(second), "--out", str(tmp_path / "b"), "--baseline", str(before)]
        code = await run_fleet_command([*argv, *common])
    assert code == ExitCode.FINDINGS  # blog's pages broke since: regressions
    summary = read_summary(tmp_path / "b")
    by_name = {item["name"]: item for item in summary["sites"]}
    assert by_name["shop"]["regressions"] == 0
    blog_report = json.loads((tmp_path / "b" / by_name["blog"]["reports"]["json"]).read_text())
    validate_report(blog_report)
    assert blog_report["diff"]["urls_broken"] == 2  # two URLs went from 2xx to an error
    assert by_name["blog"]["regressions"] == blog_report["diff"]["regressions"] > 0
    assert by_name["new"]["baseline"] is None  # not in the previous fleet: no baseline
    assert by_name["new"]["regressions"] is None
    assert by_name["shop"]["baseline"] is not None
    assert (tmp_path / "b" / by_name["blog"]["baseline"]).resolve() == (
        tmp_path / "a" / read_summary(tmp_path / "a")["sites"][1]["reports"]["json"]
    ).resolve()
    check_named_reports(summary, tmp_path / "b")


def samples(path: Path, name: str) -> dict[str, float]:
    found = {}
    for family in text_string_to_metric_families(path.read_text()):
        for sample in family.samples:
            if sample.name == name:
                found[sample.labels["site"]] = sample.value
    return found


def test_a_site_that_fails_keeps_its_last_success(tmp_path: Path) -> None:
    path = tmp_path / "fleet.prom"
    ran = [done(0, "a", Outcome.PASS), done(1, "b", Outcome.FAIL, errors=3)]
    write_fleet_metrics(path, ran, FleetRun(1, 5.0, 1000.0))
    lost = SiteOutcome(site(0, "a"), failure=SiteFailure(FailureKind.WORKER_LOST, "gone"))
    write_fleet_metrics(path, [lost, ran[1]], FleetRun(3, 5.0, 2000.0))
    assert samples(path, "sitemap_audit_last_success_timestamp_seconds") == {
        "a": 1000.0,
        "b": 2000.0,
    }
    assert samples(path, "sitemap_audit_exit_code") == {"a": 3, "b": 1}
    assert samples(path, "sitemap_audit_findings_by_severity")["b"] == 3


async def test_a_stopped_fleet_writes_what_ended_and_exits_3(tmp_path: Path) -> None:
    """SIGINT to the command's whole process group, as Ctrl-C on a terminal sends it."""
    # At most three at once: quick, dark and darker first; then later, when quick ends; last
    # never starts (the three that never answer hold the fleet until it is stopped).
    kinds = [("quick", "healthy"), ("dark", "silent"), ("darker", "silent"), ("later", "silent")]
    kinds.append(("last", "healthy"))
    async with fleet_of(kinds, first=40) as sites:
        fleet = toml_fleet(tmp_path / "sites.toml", sites, {})
        out = tmp_path / "out"
        argv = ["--fleet", str(fleet), "--out", str(out), "--fleet-workers", "2"]
        argv += ["--fleet-concurrency", "3", "--timeout", "60", "--retries", "0", "--quiet"]
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "auditor",
            *argv,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            async with asyncio.timeout(STOP_WAIT_S):
                while not list((out / "quick").glob("*.html")):  # its last report is written
                    await asyncio.sleep(0.1)
                await asyncio.sleep(ENDED_S)  # ...and its task has returned
                os.killpg(process.pid, signal.SIGINT)
                code = await process.wait()
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    assert code == ExitCode.FAILED
    summary = read_summary(out)
    assert (summary["complete"], summary["outcome"], summary["exit_code"]) == (
        False,
        "INCOMPLETE",
        3,
    )
    status = {item["name"]: item["status"] for item in summary["sites"]}
    assert status["quick"] == "done"
    assert status["dark"] == status["darker"] == "interrupted"
    assert status["later"] in {"interrupted", "not_run"}  # submitted, or not yet
    assert status["last"] == "not_run"
    check_named_reports(summary, out)
    assert not [p for p in out.rglob(".*") if p.is_file()]  # no half-written file is left

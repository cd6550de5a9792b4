"""`--fleet` on the embedded LocalCluster: 12 loopback sites on 2 worker processes.

Real Dask, real sites on 127.0.0.2 to 127.0.0.13: healthy ones, broken ones, one that never
answers, and one whose task kills its worker process (retried once on another worker, then
reported as failed). Every other site's verdict is the one a single run gives.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from defusedxml import ElementTree
from distributed import wait
from prometheus_client.parser import text_string_to_metric_families

from auditor.config import AuditConfig
from auditor.errors import ExitCode
from auditor.fleet.dask_runner import STOP_GRACE_S, ClusterSpec, _result_of, open_cluster
from auditor.fleet.sites import FailureKind, FleetSite, SiteFailure
from tests.fleet.helpers import (
    check_index,
    check_named_reports,
    plan_of,
    read_summary,
    run_fleet_command,
    single_runs,
    toml_fleet,
)
from tests.fleet.sites import KILLER, audit_or_die, fleet_of, refuse
from tests.helpers import target

pytestmark = pytest.mark.slow  # a LocalCluster of worker processes

SITES = [
    ("shop", "healthy", "PASS"),
    ("blog", "broken", "FAIL"),
    ("docs", "malformed", "FAIL"),
    ("bare", "none", "FAIL"),
    ("moved", "redirects", "PASS"),
    ("strict", "redirects", "FAIL"),  # its own fail-on: warning
    ("dark", "silent", "UNREACHABLE"),  # nothing ever answers: an outage, exit 3
    (KILLER, "healthy", None),
    ("news", "healthy", "PASS"),
    ("lenient", "broken", "PASS"),  # its own exclude: the broken pages are not requested
    ("static", "broken", "PASS"),  # its own no-check: nothing is requested
    ("api", "healthy", "PASS"),
]
OPTIONS = {
    "strict": 'fail-on = "warning"',
    "lenient": 'exclude = ["/b$", "/c$"]',
    "static": "no-check = true",
    "dark": "timeout = 0.5",  # never answers: its own short timeout
    "news": "crawl = true\ncrawl-max = 50",  # its own crawl, within its own bounds
}


async def test_twelve_sites_on_a_local_cluster(tmp_path: Path) -> None:
    async with fleet_of([(name, kind) for name, kind, _ in SITES]) as served:
        fleet = toml_fleet(tmp_path / "sites.toml", served, OPTIONS)
        out = tmp_path / "out"
        argv = ["--fleet", str(fleet), "--out", str(out), "--fleet-workers", "2", "--quiet"]
        argv += ["--timeout", "10", "--retries", "0", "--no-progress"]
        argv += ["--metrics", str(tmp_path / "fleet.prom"), "--junit", str(tmp_path / "j.xml")]
        code = await run_fleet_command(argv, task=audit_or_die)
        singles = await single_runs(await plan_of(argv), tmp_path / "single", skip={KILLER})
    assert code == ExitCode.FAILED  # a site failed to run: the worst of the sites
    summary = read_summary(out)
    assert [site["name"] for site in summary["sites"]] == [name for name, _, _ in SITES]
    assert (summary["complete"], summary["exit_code"], summary["outcome"]) == (True, 3, "FAILED")
    by_name = {site["name"]: site for site in summary["sites"]}
    killer = by_name.pop(KILLER)
    assert (killer["status"], killer["failure"]["kind"], killer["exit_code"]) == (
        "failed",
        "worker_lost",
        3,
    )
    assert {name: site["outcome"] for name, site in by_name.items()} == {
        name: outcome for name, _, outcome in SITES if outcome is not None
    }
    for name, site in by_name.items():  # the same verdicts and counts as single runs
        single = singles[name]
        assert site["outcome"] == single["outcome"], name
        assert site["by_code"] == single["by_code"], name
        assert site["counts"]["checked"] == single["checked"], name
    assert by_name["static"]["counts"]["checked"] == 0
    news = json.loads((out / by_name["news"]["reports"]["json"]).read_text())
    assert news["summary"]["coverage"]["crawled"] >= 1  # crawled in the worker, as alone
    assert summary["counts"]["by_status"] == {
        "done": 11,
        "failed": 1,
        "interrupted": 0,
        "not_run": 0,
    }
    check_named_reports(summary, out)
    check_index(out / sorted(p.name for p in out.glob("fleet-*.html"))[0], summary)
    _check_metrics(tmp_path / "fleet.prom", summary)
    _check_junit(tmp_path / "j.xml", summary)


def _check_metrics(path: Path, summary: dict[str, object]) -> None:
    """One textfile: each site's exit code under its `site` label, the fleet's counts."""
    codes: dict[str, float] = {}
    failed = -1.0
    for family in text_string_to_metric_families(path.read_text()):
        for sample in family.samples:
            if sample.name == "sitemap_audit_exit_code":
                codes[sample.labels["site"]] = sample.value
            if sample.name == "sitemap_audit_fleet_sites" and sample.labels["status"] == "failed":
                failed = sample.value
    sites = summary["sites"]
    assert isinstance(sites, list)
    assert codes == {site["name"]: site["exit_code"] for site in sites}
    assert failed == 1


def _check_junit(path: Path, summary: dict[str, object]) -> None:
    """One suite per site; the lost site's suite is one failing case of its kind."""
    root = ElementTree.parse(path).getroot()
    assert root is not None
    suites = {suite.get("name"): suite for suite in root.iter("testsuite")}
    sites = summary["sites"]
    assert isinstance(sites, list)
    assert list(suites) == [site["name"] for site in sites]
    lost = [case.find("failure") for case in suites[KILLER].iter("testcase")]
    assert [failure.get("type") for failure in lost if failure is not None] == ["worker_lost"]
    assert suites["shop"].get("failures") == "0"
    assert int(suites["blog"].get("failures") or 0) == 2  # its 404 and its 500
    assert int(root.get("tests") or 0) == sum(
        len(list(s.iter("testcase"))) for s in suites.values()
    )
    assert json.dumps(summary)  # the summary is plain JSON throughout


def _close_gracefully(dask_worker: Any) -> None:
    """Run on a nanny: when its worker dies, the nanny closes instead of starting another."""
    dask_worker.close_gracefully()


def test_a_result_lost_with_the_last_worker_is_given_up_once_the_fleet_stops() -> None:
    """Ctrl-C killed the only worker just as a site ended: the result was waited for ever."""
    stop = threading.Event()
    ended: list[object] = []
    with open_cluster(ClusterSpec(scheduler=None, workers=1, concurrency=None)) as (client, _):
        future = client.submit(refuse, FleetSite(0, "a", 1, _config()), pure=False)
        with client.as_current():  # wait() asks for the current client; open_cluster sets none
            wait([future], timeout=30)
        assert future.done()
        client.run(_close_gracefully, nanny=True)
        [pid] = client.run(os.getpid).values()
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while client.scheduler_info()["workers"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not client.scheduler_info()["workers"]  # no worker left to compute it again
        stop.set()
        waiting = threading.Thread(target=lambda: ended.append(_result_of(future, stop=stop)))
        started = time.monotonic()
        waiting.start()
        waiting.join(timeout=STOP_GRACE_S + 20)
        assert not waiting.is_alive()
    assert time.monotonic() - started < STOP_GRACE_S + 20
    [result] = ended
    assert isinstance(result, SiteFailure)
    assert result.kind is FailureKind.INTERRUPTED


def _config() -> AuditConfig:
    return AuditConfig(targets=(target("https://a.example/"),))

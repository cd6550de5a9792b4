"""`--fleet --scheduler`: a `dask scheduler` and two `dask worker` processes on loopback.

The command is the real one (`main`), its sites' tasks run in the workers' processes, and
every site's verdict is the one a single run gives.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from auditor.cli.main import main
from auditor.errors import ExitCode
from tests.fleet.helpers import (
    check_index,
    check_named_reports,
    plan_of,
    read_summary,
    single_runs,
    toml_fleet,
)
from tests.fleet.sites import fleet_of

pytestmark = pytest.mark.slow  # a dask scheduler and two workers

SITES = [
    ("shop", "healthy", "PASS"),
    ("blog", "broken", "FAIL"),
    ("moved", "redirects", "PASS"),
    ("strict", "redirects", "FAIL"),
    ("dark", "silent", "UNREACHABLE"),  # nothing ever answers: an outage, exit 3
    ("docs", "malformed", "FAIL"),
]
OPTIONS = {"strict": 'fail-on = "warning"', "dark": "timeout = 0.5"}


async def test_sites_run_on_a_running_scheduler(
    dask_cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with fleet_of([(name, kind) for name, kind, _ in SITES], first=20) as served:
        fleet = toml_fleet(tmp_path / "sites.toml", served, OPTIONS)
        out = tmp_path / "shared"  # the workers' machine is this one: a shared folder
        argv = ["--fleet", str(fleet), "--scheduler", dask_cluster, "--out", str(out)]
        argv += ["--timeout", "10", "--retries", "0", "--quiet"]
        code = await asyncio.to_thread(main, argv)
        singles = await single_runs(await plan_of(argv), tmp_path / "single", skip=set())
    assert code == ExitCode.FAILED  # the worst site, "dark", was unreachable; every site ran
    assert len(capsys.readouterr().out.strip().splitlines()) == 1  # --quiet: the verdict line
    summary = read_summary(out)
    assert summary["scheduler"] == dask_cluster
    sites = {site["name"]: site for site in summary["sites"]}
    assert {name: site["outcome"] for name, site in sites.items()} == {
        name: outcome for name, _, outcome in SITES
    }
    for name, site in sites.items():
        assert (site["outcome"], site["by_code"]) == (
            singles[name]["outcome"],
            singles[name]["by_code"],
        ), name
        assert int(site["worker"].rsplit(":", 1)[1]) != os.getpid()  # run by a worker
    assert len({site["worker"] for site in sites.values()}) == 2  # both workers had sites
    check_named_reports(summary, out)
    check_index(next(out.glob("fleet-*.html")), summary)

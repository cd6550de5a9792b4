"""`--fleet` with `--history DIR`: each site's own history, kept across two fleet runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fleet.helpers import read_summary, run_fleet_command, toml_fleet
from tests.fleet.sites import fleet_of

pytestmark = pytest.mark.slow  # a LocalCluster of worker processes


async def test_a_fleet_keeps_a_history_per_site(tmp_path: Path) -> None:
    histories = tmp_path / "histories"
    carried = {}
    async with fleet_of([("shop", "healthy"), ("blog", "broken")]) as served:
        fleet = toml_fleet(tmp_path / "sites.toml", served, {})
        for night in (1, 2):
            out = tmp_path / f"out{night}"
            argv = ["--fleet", str(fleet), "--out", str(out), "--fleet-workers", "2"]
            argv += ["--quiet", "--no-progress", "--retries", "0"]
            argv += ["--history", str(histories), "--budget", "1"]
            await run_fleet_command(argv)
            for site in read_summary(out)["sites"]:
                report = json.loads((out / site["reports"]["json"]).read_text())
                history = report["summary"]["history"]
                carried[night, site["name"]] = (history["requested"], history["carried"])
    assert sorted(path.name for path in histories.glob("*.history")) == [
        "blog.history",
        "shop.history",
    ]
    # Three pages a site, one request a night: the second night carries the first's verdict.
    assert carried == {
        (1, "shop"): (1, 0),
        (1, "blog"): (1, 0),
        (2, "shop"): (1, 1),
        (2, "blog"): (1, 1),
    }

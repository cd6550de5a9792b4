"""Every output says what the run requested and what it carried: HTML, terminal, metrics."""

from __future__ import annotations

import asyncio
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from auditor.api.runs import read_report
from auditor.cli.terminal import plain_lines
from auditor.demo.server import serve
from tests.wings.history.site import HistorySite, audit_night


async def test_a_night_with_a_budget_in_every_output(tmp_path: Path) -> None:
    site = HistorySite(6)
    history = tmp_path / "h.sqlite"
    metrics = tmp_path / "m.prom"
    async with serve(site.routes) as served:
        await audit_night(tmp_path, served.base, 0, history=history, budget=4)
        audited = await audit_night(
            tmp_path, served.base, 2, history=history, budget=2, metrics=metrics, max_age_days=2
        )
    # Night 2: /p0-/p3 are two days old and due; two are requested, two carried; /p4 and /p5
    # are never checked yet.
    said = audited.report["summary"]["history"]
    assert (said["requested"], said["carried"], said["never_checked"]) == (2, 2, 2)
    families = {f.name: f for f in text_string_to_metric_families(metrics.read_text())}
    values = {
        name: families[f"sitemap_audit_{name}"].samples[0].value
        for name in ("urls_carried", "urls_never_checked", "urls_max_age_exceeded")
    }
    assert values == {"urls_carried": 2, "urls_never_checked": 2, "urls_max_age_exceeded": 2}
    age = families["sitemap_audit_oldest_verdict_age_seconds"].samples[0].value
    assert age == 2 * 86_400
    html = audited.result.html_path.read_text()
    assert html.count('id="history"') == 1
    lines = plain_lines(audited.result, no_check=False)
    assert sum(1 for line in lines if line.startswith("history:")) == 1


async def test_without_a_history_no_output_speaks_of_one(tmp_path: Path) -> None:
    site = HistorySite(2)
    async with serve(site.routes) as served:
        audited = await audit_night(tmp_path, served.base, 0, history=None)
    assert "history" not in audited.report["summary"]
    assert 'id="history"' not in audited.result.html_path.read_text()
    assert all("checked_at" not in entry for entry in audited.report["urls"])
    assert not any(
        line.startswith("history:") for line in plain_lines(audited.result, no_check=False)
    )


async def test_the_library_reads_carried_verdicts_back(tmp_path: Path) -> None:
    site = HistorySite(3)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        await audit_night(tmp_path, served.base, 0, history=history)
        audited = await audit_night(tmp_path, served.base, 2, history=history, budget=1)
    report = await asyncio.to_thread(read_report, audited.result.json_path)
    urls = await asyncio.to_thread(lambda: list(report.urls()))
    assert sorted((url.carried, url.checked, url.checked_at) for url in urls) == [
        (False, True, "2026-11-25T12:00:00Z"),
        (True, True, "2026-11-23T12:00:00Z"),
        (True, True, "2026-11-23T12:00:00Z"),
    ]

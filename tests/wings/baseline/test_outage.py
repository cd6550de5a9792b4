"""An outage is its own outcome: exit 3, a report marked unreachable, never a baseline.

On loopback: a site served on one port night after night, taken down for one night and for
three, then up again with one new problem; the documented recipe (docs/how-to/monitoring.md)
run literally, as cron runs it. And the run's other outputs: several targets of which one
answers, `--baseline` given an outage's report, JUnit and the metrics, the history.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import defusedxml.ElementTree as SafeET
import pytest
from aiohttp import web
from prometheus_client.parser import text_string_to_metric_families

from auditor.cli.main import main
from auditor.config import FailOn
from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import Route, serve
from auditor.errors import ExitCode
from auditor.results.verdict import Outcome
from auditor.wings.history.verdict_store import HistoryStore
from tests.helpers import refused_port, run_audit
from tests.wings.baseline.test_recipe import Site, night_said
from tests.wings.history.site import HistorySite, audit_night


class RobotsSite(Site):
    """test_recipe's site (known errors from the first night), its sitemap named in robots.txt."""

    def routes(self, base: str) -> dict[str, Route]:
        async def robots(_request: web.Request) -> web.StreamResponse:
            return web.Response(text=f"User-agent: *\nSitemap: {base}/sitemap.xml\n")

        return {**super().routes(base), "/robots.txt": robots}


@asynccontextmanager
async def up_on(port: int, site: Site) -> AsyncIterator[str]:
    """`site` served on `port` (the same every night) until the block ends."""
    bound = socket.socket()
    bound.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    bound.bind(("127.0.0.1", port))
    async with serve(site.routes, bound=bound) as served:
        yield served.base


@asynccontextmanager
async def down_on(port: int) -> AsyncIterator[None]:
    """`port` held but not listening: every connection is refused, and nobody else takes it."""
    with socket.socket() as held:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.bind(("127.0.0.1", port))
        yield


def verdict_of(said: str) -> str:
    """The job's one line (`quiet`): its verdict."""
    lines = said.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.slow
@pytest.mark.parametrize("nights_down", [1, 3])
async def test_the_recipe_over_an_outage_compares_with_the_last_good_report(
    tmp_path: Path, nights_down: int
) -> None:
    site, port = RobotsSite(), refused_port()
    (tmp_path / "audit.toml").write_text(
        f'targets = ["http://127.0.0.1:{port}/"]\nallow-private = true\n'
        "timeout = 2.0\nretries = 0\nno-progress = true\nquiet = true\n"
    )
    latest = tmp_path / "latest.json"
    # The site is up, with known errors: the first night has no baseline, and passes.
    async with up_on(port, site):
        code, said = await night_said(tmp_path)
    assert (code, verdict_of(said).split(":")[0]) == (ExitCode.OK, "PASS")
    good = json.loads(latest.read_bytes())
    assert good["summary"]["by_severity"]["error"] == 2  # the 500 and the priority
    # Down: every night pages (never 0) and says why; the last good report stays the baseline.
    for _ in range(nights_down):
        async with down_on(port):
            code, said = await night_said(tmp_path)
        assert code == ExitCode.FAILED
        assert verdict_of(said).startswith("UNREACHABLE: site unreachable: ")
        assert "target.connect" in verdict_of(said)
        newest = max((tmp_path / "reports").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
        assert json.loads(newest.read_bytes())["unreachable"] is True  # kept, not the baseline
        assert json.loads(latest.read_bytes())["generated_at"] == good["generated_at"]
    # Up again with one new problem: that one alone is the regression, not the known ones.
    site.broken.add("/b")
    async with up_on(port, site):
        code, said = await night_said(tmp_path)
    assert code == ExitCode.FINDINGS
    assert verdict_of(said).startswith("FAIL: 1 regression since the baseline")
    diff = json.loads(latest.read_bytes())["diff"]
    assert (diff["regressions"], diff["new_findings"]) == (1, {"http.server_error": 1})
    assert [item["subject"] for item in diff["regression_examples"]] == [
        f"http://127.0.0.1:{port}/b"
    ]


@pytest.mark.usefixtures("engine")
async def test_one_target_answering_is_no_outage_of_the_run(tmp_path: Path) -> None:
    """Several targets: the run is unreachable only when none answered."""
    routes = {"/sitemap.xml": xml_page(urlset([url("http://127.0.0.1/a")]))}
    silent = f"http://127.0.0.1:{refused_port()}/"
    async with serve(lambda base: routes) as served:
        partial = await run_audit(tmp_path / "one", f"{served.base}/sitemap.xml", silent)
    assert partial.report["unreachable"] is False
    assert partial.result.exit_code == ExitCode.FINDINGS  # the silent one's target.connect
    assert partial.codes()["target.connect"] == 1
    other = f"http://127.0.0.1:{refused_port()}/sitemap.xml"
    both = await run_audit(tmp_path / "both", silent, other, retries=0)
    assert both.report["unreachable"] is True
    assert both.result.verdict.outcome is Outcome.UNREACHABLE
    assert both.result.exit_code == ExitCode.FAILED
    assert both.codes()["target.connect"] == 2


@pytest.mark.usefixtures("engine")
async def test_an_outage_fails_junit_and_says_so_in_the_metrics(tmp_path: Path) -> None:
    """`--fail-on never`: the site's findings fail nothing, an outage still does."""
    junit, metrics = tmp_path / "junit.xml", tmp_path / "audit.prom"
    audited = await run_audit(
        tmp_path,
        f"http://127.0.0.1:{refused_port()}/",
        fail_on=FailOn.NEVER,
        junit=junit,
        metrics=metrics,
        retries=0,
    )
    assert audited.result.exit_code == ExitCode.FAILED
    root = SafeET.parse(junit).getroot()
    assert root is not None
    failing = [c.get("name") for c in root.iter("testcase") if c.find("failure") is not None]
    assert len(failing) == 1  # the target, why nothing answered; robots.txt's error is the site's
    assert root.get("failures") == "1"
    samples = {
        sample.name: sample.value
        for family in text_string_to_metric_families(metrics.read_text())
        for sample in family.samples
    }
    assert samples["sitemap_audit_unreachable"] == 1
    assert samples["sitemap_audit_exit_code"] == ExitCode.FAILED


def test_baseline_refuses_the_report_of_an_outage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    silent = f"http://127.0.0.1:{refused_port()}/"
    command = [silent, "--allow-private", "--no-progress", "--retries", "0", "--json"]
    outage, after = tmp_path / "down.json", tmp_path / "next.json"
    assert main([*command, str(outage)]) == ExitCode.FAILED
    capsys.readouterr()
    assert main([*command, str(after), "--baseline", str(outage)]) == ExitCode.USAGE
    assert len(capsys.readouterr().err.splitlines()) == 1
    assert not after.exists()  # refused before the run: nothing written


@pytest.mark.usefixtures("engine")
async def test_an_outage_forgets_no_url_of_the_history(tmp_path: Path) -> None:
    history = tmp_path / "audit.history"
    site = HistorySite(5)
    async with serve(site.routes) as served:
        base = served.base
        await audit_night(tmp_path, base, 0, history=history)
    down = await audit_night(tmp_path, base, 1, history=history, retries=0)  # the port is closed
    assert down.result.verdict.outcome is Outcome.UNREACHABLE
    assert await asyncio.to_thread(history_rows, history) == 5


def history_rows(path: Path) -> int:
    store = HistoryStore.open(path)
    try:
        return len(list(store.rows()))
    finally:
        store.close()


@pytest.mark.usefixtures("engine")
async def test_an_outage_drops_no_sitemap_kept_by_state(tmp_path: Path) -> None:
    state = tmp_path / "audit.state"

    def routes(base: str) -> dict[str, Route]:
        robots = Page(200, f"User-agent: *\nSitemap: {base}/sitemap.xml\n".encode())
        listed = xml_page(urlset([url(f"{base}/a")]), ETag='"v1"')
        return {"/robots.txt": robots, "/sitemap.xml": listed}

    async with serve(routes) as served:
        target = f"{served.base}/"  # tonight's robots.txt gets no answer: no sitemap is asked
        await run_audit(tmp_path / "up", target, state=state)
    kept = state.read_text()
    assert f"{served.base}/sitemap.xml" in kept
    down = await run_audit(tmp_path / "down", target, state=state, retries=0)
    assert down.result.verdict.outcome is Outcome.UNREACHABLE
    assert state.read_text() == kept

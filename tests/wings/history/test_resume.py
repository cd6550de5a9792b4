"""--resume: a run stopped by Ctrl-C (SIGINT) or killed (SIGKILL), then continued.

The first run is the real command in a child process, against a loopback site whose pages
answer slowly; it is signalled once the site has answered some of its pages. The history then
holds what that run had written; the resumed run requests only the others, and its report is
the one an uninterrupted run writes. A killed run never damages the history: earlier nights
stay whole.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from pathlib import Path
from typing import Any

from auditor.checks.stage import RESULT_BATCH
from auditor.clock import SystemClock
from auditor.config import FailOn
from auditor.demo.server import serve
from auditor.errors import ExitCode
from auditor.urls import parse_http_url, url_digest
from auditor.wings.history.verdict_store import HistoryStore
from tests.helpers import Audited, run_audit
from tests.wings.history.site import HistorySite

PAGES = 240
DELAY_S = 0.02
IN_FLIGHT = 4  # --concurrency
SIGNAL_AT = 140  # page requests the child has made when it is signalled
WAIT_S = 30.0  # for the child to get going, and to end
# A run stopped (SIGINT) writes every check answered: only what was in flight is requested
# again. One killed loses what it had not written too: checks are handed on in batches of at
# most RESULT_BATCH (auditor.checks.stage), each written while the next is checked.
LOST_AT_MOST = {signal.SIGINT: IN_FLIGHT, signal.SIGKILL: 2 * RESULT_BATCH + IN_FLIGHT}


def slow_site() -> HistorySite:
    site = HistorySite(PAGES)
    for page in site.pages.values():
        page.delay_s = DELAY_S
    return site


async def audit_now(tmp_path: Path, base: str, **options: Any) -> Audited:
    """An audit in this process, on the real clock (as the child's)."""
    return await run_audit(
        tmp_path,
        f"{base}/sitemap.xml",
        clock=SystemClock(),
        no_check=False,
        concurrency=IN_FLIGHT,
        per_host=IN_FLIGHT,
        workers=1,
        **options,
    )


async def stopped_run(
    tmp_path: Path, site: HistorySite, base: str, history: Path, signum: signal.Signals
) -> int:
    """The command in a child, signalled once it has requested SIGNAL_AT pages."""
    argv = [sys.executable, "-m", "auditor", f"{base}/sitemap.xml", "--history", str(history)]
    argv += ["--json", str(tmp_path / "stopped.json")]
    argv += ["--concurrency", str(IN_FLIGHT), "--per-host", str(IN_FLIGHT)]
    argv += ["--workers", "1", "--retries", "0", "--allow-private", "--no-progress", "--quiet"]
    child = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )
    deadline = time.monotonic() + WAIT_S
    while site.requests.total() < SIGNAL_AT:
        assert time.monotonic() < deadline, "the child did not get going"
        assert child.returncode is None
        await asyncio.sleep(0.01)
    child.send_signal(signum)
    return await asyncio.wait_for(child.wait(), WAIT_S)


def recorded(history: Path, base: str) -> dict[str, int]:
    """The pages whose check the history holds, and when each was made."""
    by_digest = {}
    for path in (f"/p{n}" for n in range(PAGES)):
        parsed = parse_http_url(f"{base}{path}")
        assert parsed is not None
        by_digest[url_digest(parsed.key)] = path
    store = HistoryStore.open(history)
    try:
        return {
            by_digest[known.digest]: known.checked
            for known in store.rows()
            if known.checked is not None
        }
    finally:
        store.close()


def answers(audited: Audited) -> dict[str, tuple[object, ...]]:
    """What the report says of each URL, less what depends on time."""
    return {
        entry["loc"].rsplit("/", 1)[1]: (
            entry.get("status"),
            entry.get("indexability"),
            entry.get("carried"),
            sorted(item["code"] for item in entry["findings"] if item["code"] != "url.slow"),
        )
        for entry in audited.report["urls"]
    }


async def resumed_after(tmp_path: Path, signum: signal.Signals) -> None:
    site = slow_site()
    site.change("/p7", status=404)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        base = served.base
        # An earlier night, whole: a killed run must not lose it.
        before = await audit_now(tmp_path / "night0", base, history=history)
        night0 = await asyncio.to_thread(recorded, history, base)
        site.requests.clear()
        code = await stopped_run(tmp_path, site, base, history, signum)
        first = set(site.requests)
        site.requests.clear()
        every = await asyncio.to_thread(recorded, history, base)
        done = {path for path, when in every.items() if when > night0[path]}
        resumed = await audit_now(tmp_path / "resumed", base, history=history, resume=True)
        second = set(site.requests)
    assert code == (3 if signum is signal.SIGINT else -signal.SIGKILL)
    assert set(every) == set(site.pages)  # night 0's verdicts, all kept
    assert 0 < len(done) < PAGES
    # Only what the stopped run had not recorded is requested again.
    assert second.isdisjoint(done)
    assert second | done == set(site.pages)
    assert len(first & second) <= LOST_AT_MOST[signum]
    said = resumed.report["summary"]
    assert (said["checked"], said["history"]["resumed"]) == (PAGES, len(done))
    assert said["history"]["resumed_from"] is not None
    assert said["history"]["requested"] == PAGES
    # One report, as if the run had not stopped: the same answers as an unbroken run's.
    assert resumed.report["complete"] is True
    assert answers(resumed) == answers(before)


async def test_a_run_stopped_by_ctrl_c_resumes_where_it_stopped(tmp_path: Path) -> None:
    await resumed_after(tmp_path, signal.SIGINT)


async def test_a_killed_run_resumes_where_it_stopped_and_loses_no_night(tmp_path: Path) -> None:
    await resumed_after(tmp_path, signal.SIGKILL)


async def test_resume_with_nothing_to_resume_is_a_whole_run(tmp_path: Path) -> None:
    site = HistorySite(5)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        await audit_now(tmp_path / "one", served.base, history=history)
        site.requests.clear()
        again = await audit_now(tmp_path / "two", served.base, history=history, resume=True)
    assert set(site.requests) == set(site.pages)
    said = again.report["summary"]["history"]
    assert (said["resumed"], said["resumed_from"]) == (0, None)


async def test_without_resume_a_stopped_run_is_left_and_its_checks_kept(tmp_path: Path) -> None:
    site = slow_site()
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        await stopped_run(tmp_path, site, served.base, history, signal.SIGINT)
        done = await asyncio.to_thread(recorded, history, served.base)
        site.requests.clear()
        # A new run (no --resume) with a budget: the stopped run's checks are the freshest.
        fresh = await audit_now(tmp_path / "new", served.base, history=history, budget=PAGES)
    assert set(site.requests) == set(site.pages)
    assert fresh.report["summary"]["history"]["resumed"] == 0
    assert fresh.report["summary"]["history"]["by_tier"]["never_checked"] == PAGES - len(done)


async def test_a_page_whose_lastmod_moved_since_the_stopped_run_is_requested_again(
    tmp_path: Path,
) -> None:
    """The stopped run saw /p0 broken; before the resume it is fixed, and its lastmod says so:
    the resumed run requests it, and says it answers (no stale verdict, no false regression)."""
    site = slow_site()
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        base = served.base
        before = await audit_now(tmp_path / "night0", base, history=history)
        site.change("/p0", status=404)
        site.requests.clear()
        await stopped_run(tmp_path, site, base, history, signal.SIGINT)
        assert "/p0" in site.requests
        site.change("/p0", status=200, lastmod="2026-11-26")
        site.requests.clear()
        resumed = await audit_now(
            tmp_path / "resumed",
            base,
            history=history,
            resume=True,
            baseline=before.result.json_path,
            fail_on=FailOn.NEVER,
            fail_on_new=FailOn.ERROR,
        )
    assert site.requests["/p0"] == 1
    entry = next(item for item in resumed.report["urls"] if item["loc"].endswith("/p0"))
    assert entry["status"] == 200
    assert resumed.report["diff"]["regressions"] == 0
    assert resumed.result.exit_code is ExitCode.OK

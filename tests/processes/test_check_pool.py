"""Checker processes (--workers): limits shared out, same answers, failures and signals."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from auditor.codes import Code
from auditor.config import AuditConfig
from auditor.demo.documents import url, urlset, xml_page
from auditor.demo.server import DEMO_CA, Route, serve, serve_demo
from auditor.errors import CheckerProcessError, ExitCode
from auditor.models import CheckResult, Redirect, finding
from auditor.net.address_guard import Reach
from auditor.processes.check_pool import CheckPool, pack_result, unpack_result
from auditor.processes.shares import checker_configs
from tests.checks.test_stage import site_of, stalled
from tests.helpers import Report, run_audit, target, validate_report

pytestmark = pytest.mark.slow  # checker processes started and stopped


@pytest.mark.parametrize(
    ("workers", "concurrency", "per_host", "rate", "expected"),
    [
        (2, 128, 8, None, [(64, 4), (64, 4)]),
        (3, 10, 8, 30.0, [(4, 3), (3, 3), (3, 2)]),
        (4, 128, 2, None, [(64, 1), (64, 1)]),  # never more processes than per-host slots
        (8, 3, 8, None, [(1, 1), (1, 1), (1, 1)]),
        (1, 5, 5, 2.0, [(5, 5)]),
    ],
)
def test_shard_configs_share_the_limits_out(
    workers: int,
    concurrency: int,
    per_host: int,
    rate: float | None,
    expected: list[tuple[int, int]],
) -> None:
    config = AuditConfig(
        targets=(target("https://example.com/"),),
        workers=workers,
        concurrency=concurrency,
        per_host=per_host,
        rate=rate,
    )
    shards = checker_configs(config)
    assert [(shard.concurrency, shard.per_host) for shard in shards] == expected
    assert sum(shard.concurrency for shard in shards) == concurrency
    assert sum(shard.per_host for shard in shards) == min(per_host, concurrency)
    assert {shard.workers for shard in shards} == {1}
    if rate is not None:
        assert sum(shard.rate or 0 for shard in shards) == pytest.approx(rate)


def test_a_packed_result_unpacks_to_the_same_result() -> None:
    result = CheckResult(
        301,
        final_url="https://example.com/b",
        final_status=404,
        redirects=(Redirect("https://example.com/a", 301),),
        elapsed_ms=12,
        method="GET",
        findings=(finding(Code.HTTP_NOT_FOUND, url="https://example.com/a", status=404),),
        etag='"v1"',
        not_modified=True,
    )
    assert unpack_result(pack_result(7, result)) == (7, result)
    # All but what the history sets in the audit's own process (checked_at, carried).
    assert len(pack_result(7, result)) == len(fields(CheckResult)) + 1 - 2


def _answers(report: Report) -> dict[str, tuple[object, ...]]:
    """What each URL's check said, less what depends on timing."""
    return {
        entry["loc"]: (
            entry.get("status"),
            entry.get("final_url"),
            entry.get("final_status"),
            json.dumps(entry.get("redirects")),
            sorted(f["code"] for f in entry["findings"] if f["code"] != "url.slow"),
        )
        for entry in report["urls"]
    }


async def test_checker_processes_give_the_same_answers_on_the_demo(tmp_path: Path) -> None:
    """Every status, redirect and network code of the demo comes back alike from two processes."""
    async with serve_demo() as sites:
        settings: dict[str, Any] = {
            "no_check": False,
            "allow_private": False,
            "ca_file": DEMO_CA,
            "timeout_s": 2.0,
            "retries": 1,
        }
        one = await run_audit(tmp_path / "one", *sites, workers=1, **settings)
        two = await run_audit(tmp_path / "two", *sites, workers=2, **settings)
    assert _answers(two.report) == _answers(one.report)
    assert two.report["summary"]["checked"] == one.report["summary"]["checked"] > 30
    families = ("http.", "redirect.", "net.")
    codes = {code for code in two.codes() if code.startswith(families)}
    assert len(codes) > 10  # the demo's failures did go through the children


async def test_rate_holds_in_total(tmp_path: Path) -> None:
    times: list[float] = []

    async def page(request: web.Request) -> web.StreamResponse:
        times.append(time.monotonic())
        return web.Response(text="ok")

    def routes(base: str) -> dict[str, Route]:
        locs = [url(f"{base}/p/{n}") for n in range(12)]
        return {"/s.xml": xml_page(urlset(locs)), **{f"/p/{n}": page for n in range(12)}}

    async with serve(routes) as served:
        await run_audit(tmp_path, f"{served.base}/s.xml", no_check=False, rate=20.0, workers=2)
    assert len(times) == 12
    # Two processes at 10/s each: 6 requests each, 5 gaps of 0.1 s. Were each at the full
    # rate, the 12 would take 0.25 s.
    assert times[-1] - times[0] > 0.45
    busiest = max(sum(1 for at in times if start <= at < start + 0.2) for start in times)
    assert busiest <= 6  # 20/s for 0.2 s, and the first request of each process


# A child that reads the set-up frame's first bytes and dies: every job it is given is lost.
_DIES = (sys.executable, "-c", "import sys; sys.stdin.buffer.read(8); sys.exit(3)")


def _pool(answered: list[tuple[int, CheckResult]]) -> CheckPool[int]:
    config = AuditConfig(targets=(target("https://example.com/"),), workers=1)

    async def emit(pairs: list[tuple[int, CheckResult]]) -> None:
        answered.extend(pairs)

    return CheckPool([config], reach=Reach.ANY, emit=emit, command=_DIES)


async def _run(pool: CheckPool[int], *, jobs: int, close_after_s: float = 0.0) -> None:
    async def feed() -> None:
        for n in range(jobs):
            await pool.put(n, f"https://example.com/{n}", "https://example.com")
        await asyncio.sleep(close_after_s)
        await pool.close()

    async with asyncio.TaskGroup() as group:
        group.create_task(pool.run())
        group.create_task(feed())


async def test_jobs_two_dead_checkers_held_are_internal_errors_never_lost() -> None:
    """Each job is sent to a new child once; the second child's death answers it."""
    answered: list[tuple[int, CheckResult]] = []
    await _run(_pool(answered), jobs=5)
    assert sorted(ident for ident, _ in answered) == list(range(5))
    codes = {tuple(f.code for f in result.findings) for _, result in answered}
    assert codes == {(Code.INTERNAL_ERROR,)}


async def test_checkers_that_keep_dying_fail_the_run() -> None:
    """New children replace dead ones a few times, not for ever: the run fails then."""
    answered: list[tuple[int, CheckResult]] = []
    with pytest.raises(ExceptionGroup) as caught:
        await _run(_pool(answered), jobs=0, close_after_s=10.0)
    assert caught.group_contains(CheckerProcessError)
    assert answered == []


def _children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in text.split()]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


async def test_a_checker_process_killed_mid_run_loses_only_its_urls_checked_again(
    tmp_path: Path,
) -> None:
    """A checker that dies (here SIGKILL) took the run with it (internal.error, exit 3): now a
    new checker takes its unanswered URLs, and every URL gets its own answer."""
    report_path = tmp_path / "r.json"

    async def slow(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(1.5)  # in flight in the children when one is killed
        return web.Response(text="ok")

    async with serve(site_of(40, extra={f"/p/{n}": slow for n in range(40)})) as served:
        with (tmp_path / "stderr.txt").open("wb") as stderr:
            process = await asyncio.create_subprocess_exec(
                *[sys.executable, "-m", "auditor", "--json", str(report_path), "--allow-private"],
                *["--per-host", "64", "--timeout", "30", "--workers", "2", "--quiet"],
                f"{served.base}/s.xml",
                stdout=asyncio.subprocess.DEVNULL,
                stderr=stderr,
            )
            while sum(served.hits.get(f"/p/{n}", 0) for n in range(40)) < 40:
                await asyncio.sleep(0.05)
            first, second = _children(process.pid)
            os.kill(first, signal.SIGKILL)
            returncode = await asyncio.wait_for(process.wait(), timeout=60)
        hits = dict(served.hits)
    assert returncode == ExitCode.OK
    report = json.loads(report_path.read_text())
    validate_report(report)
    assert report["complete"] is True
    assert report["summary"]["by_status_class"] == {"2xx": 40}
    assert set(report["summary"]["by_code"]) <= {"url.slow"}
    again = [n for n in range(40) if hits.get(f"/p/{n}", 0) == 2]
    assert 0 < len(again) <= 20  # the killed checker's share, asked again; no other URL
    assert _alive(second) is False
    err = (tmp_path / "stderr.txt").read_text()
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1  # the warning that a new checker took over


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
async def test_a_signal_to_the_process_group_stops_every_process(
    tmp_path: Path, signum: signal.Signals
) -> None:
    """Ctrl-C reaches the children too: they ignore it, and the parent ends them and reports."""
    report_path = tmp_path / "r.json"
    async with serve(site_of(40, extra={f"/p/{n}": stalled for n in range(20, 40)})) as served:
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "auditor", "--json", str(report_path), "--allow-private"],
            *["--per-host", "64", "--timeout", "60", "--workers", "2"],
            f"{served.base}/s.xml",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,  # its own process group, as a shell gives a job
        )
        while sum(served.hits.get(f"/p/{n}", 0) for n in range(40)) < 40:
            await asyncio.sleep(0.05)
        # A hit is counted when the request arrives; its answer still has to reach the audit's
        # process through a child. On a loaded 2-core machine that took over 50 ms (CI).
        await asyncio.sleep(1.0)
        children = _children(process.pid)
        signalled = time.monotonic()
        os.killpg(process.pid, signum)
        returncode = await asyncio.wait_for(process.wait(), timeout=10)
        took_s = time.monotonic() - signalled
    assert len(children) == 2
    assert returncode == ExitCode.FAILED
    assert took_s < 2.0
    assert not any(_alive(child) for child in children)
    report = json.loads(report_path.read_text())
    validate_report(report)
    assert report["complete"] is False
    assert report["summary"]["checked"] >= 20


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
async def test_checker_processes_end_when_the_audit_is_killed(tmp_path: Path, loop: str) -> None:
    """A killed audit (its end frame may be sent already) leaves no checker running on."""
    pytest.importorskip(loop)
    async with serve(site_of(40, extra={f"/p/{n}": stalled for n in range(40)})) as served:
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "auditor", "--json", str(tmp_path / "r.json")],
            *["--allow-private", "--timeout", "60", "--workers", "2", "--loop", loop],
            f"{served.base}/s.xml",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        while sum(served.hits.get(f"/p/{n}", 0) for n in range(40)) < 8:  # both busy
            await asyncio.sleep(0.05)
        children = _children(process.pid)
        process.kill()
        await process.wait()
        killed = time.monotonic()
        while any(_alive(child) for child in children) and time.monotonic() < killed + 10:
            await asyncio.sleep(0.05)
        took_s = time.monotonic() - killed
    assert len(children) == 2
    assert took_s < 3.0  # not the 60 s their requests could still take


async def test_uvloop_runs_the_audit_and_its_checkers(tmp_path: Path) -> None:
    pytest.importorskip("uvloop")
    report_path = tmp_path / "r.json"
    async with serve(site_of(30)) as served:
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "auditor", "--json", str(report_path), "--allow-private"],
            *["--loop", "uvloop", "--workers", "2", f"{served.base}/s.xml"],
            stdout=asyncio.subprocess.DEVNULL,
        )
        assert await asyncio.wait_for(process.wait(), timeout=30) == ExitCode.OK
    report = json.loads(report_path.read_text())
    assert report["summary"]["by_status_class"] == {"2xx": 30}
    assert report["config"]["loop"] == "uvloop"

"""A stop at any moment, then --resume: what is requested twice is at most what was in flight.

The first run is the real command in a child process, signalled (SIGINT) once the loopback site
has answered a number of its pages drawn at random; the site counts the requests of each page.
The stopped run's report counts what its history holds; the resumed run requests each URL the
stopped one did not record, and only URLs whose check was under way at the stop are requested
twice: at most --per-host (and --concurrency) of the site's one host, each check being one
request (docs/how-to/big-sites.md#resume-an-interrupted-run-resume). Each round draws the
stop point and the limits, for each engine with and without checker processes and a budget.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from auditor.clock import SystemClock
from auditor.config import Engine
from auditor.demo.server import serve
from auditor.errors import ExitCode
from auditor.wings.history.verdict_store import HistoryStore
from tests.helpers import Audited, run_audit
from tests.wings.history.site import HistorySite

PAGES = 120
DELAY_S = 0.005
WAIT_S = 60.0  # for the child to get going, and to end (a loaded machine is slow to start one)


@dataclass(frozen=True)
class Draw:
    """One round's run: where it is stopped, and how it checks."""

    engine: Engine
    workers: int
    per_host: int
    concurrency: int
    budget: int | None
    stop_at: int  # page requests the site has answered when the signal goes

    @property
    def wanted(self) -> int:
        """The URLs the two runs request between them."""
        return self.budget if self.budget is not None else PAGES

    @property
    def twice_at_most(self) -> int:
        """URLs whose check may be under way at the stop: one host, one request a check."""
        return min(self.per_host, self.concurrency)

    def options(self) -> list[str]:
        limits = ["--workers", str(self.workers), "--engine", self.engine.value]
        limits += ["--per-host", str(self.per_host), "--concurrency", str(self.concurrency)]
        return limits + (["--budget", str(self.budget)] if self.budget is not None else [])


def draws(rng: random.Random) -> list[Draw]:
    """Each engine with and without checker processes and a budget; the limits and the moment
    of the stop drawn."""
    found = []
    for engine, workers, budget in itertools.product(Engine, (1, 2), (None, PAGES * 2 // 3)):
        per_host = rng.choice((1, 2, 4, 8))
        wanted = budget if budget is not None else PAGES
        found.append(
            Draw(
                engine=engine,
                workers=workers,
                per_host=per_host,
                concurrency=rng.choice((per_host, 3, 32)),
                budget=budget,
                stop_at=rng.randint(1, wanted * 3 // 4),
            )
        )
    return found


async def stopped(site: HistorySite, base: str, history: Path, report: Path, how: Draw) -> int:
    """The command in a child, sent SIGINT once the site has answered `how.stop_at` pages."""
    argv = [sys.executable, "-m", "auditor", f"{base}/sitemap.xml", "--history", str(history)]
    argv += ["--json", str(report), "--allow-private", "--no-progress", "--quiet", *how.options()]
    child = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )
    deadline = time.monotonic() + WAIT_S
    while site.requests.total() < how.stop_at:
        assert time.monotonic() < deadline, "the child did not get going"
        assert child.returncode is None, "the child ended before its stop"
        await asyncio.sleep(0.002)
    child.send_signal(signal.SIGINT)
    return await asyncio.wait_for(child.wait(), WAIT_S)


def recorded(history: Path) -> int:
    """The URLs whose check the history holds."""
    store = HistoryStore.open(history)
    try:
        return sum(1 for known in store.rows() if known.checked is not None)
    finally:
        store.close()


async def resumed(folder: Path, base: str, history: Path, how: Draw) -> Audited:
    """--resume, in this process, with the stopped run's limits."""
    return await run_audit(
        folder,
        f"{base}/sitemap.xml",
        clock=SystemClock(),
        no_check=False,
        history=history,
        resume=True,
        engine=how.engine,
        workers=how.workers,
        per_host=how.per_host,
        concurrency=how.concurrency,
        budget=how.budget,
    )


async def one_round(tmp_path: Path, how: Draw) -> None:
    site = HistorySite(PAGES)
    for page in site.pages.values():
        page.delay_s = DELAY_S
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        code = await stopped(site, served.base, history, tmp_path / "stopped.json", how)
        first = Counter(site.requests)
        site.requests.clear()
        kept = await asyncio.to_thread(recorded, history)
        again = await resumed(tmp_path / "resumed", served.base, history, how)
        second = Counter(site.requests)
    assert code == ExitCode.FAILED, how
    # What the stopped run says it requested is what its history holds, and what it reports.
    said = json.loads((tmp_path / "stopped.json").read_bytes())["summary"]
    assert said["history"]["requested"] == said["checked"] == kept, how
    # No URL twice in one run; across the two, only what was under way at the stop.
    assert max(first.values()) == max(second.values()) == 1, how
    assert len(first.keys() & second.keys()) <= how.twice_at_most, (how, first & second)
    assert len(first.keys() | second.keys()) == how.wanted, how
    history_said = again.report["summary"]["history"]
    assert (history_said["requested"], history_said["resumed"]) == (how.wanted, kept), how
    assert again.report["complete"] is True


@pytest.mark.slow
async def test_a_stop_at_any_moment_requests_again_only_what_was_in_flight(
    tmp_path: Path,
) -> None:
    for number, how in enumerate(draws(random.Random(36))):
        await one_round(tmp_path / f"round{number}", how)

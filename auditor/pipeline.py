"""The composition root: the only module that sees every stage (DESIGN §3).

targets -> walker (discovery, sitemap readers) -> bounded queue -> sink (summary, JSON writer).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiofiles.os

from auditor.clock import Clock, SystemClock
from auditor.config import AuditConfig
from auditor.discover import RobotsCache, fetch_robots
from auditor.fetch import HttpClient, Timeouts, is_private_host
from auditor.follow import FetchPolicy, Follower
from auditor.models import TargetRecord
from auditor.reader import ReadServices
from auditor.report.encode import head_json, target_json
from auditor.report.json_writer import JsonReportWriter, ReportWriteError
from auditor.robots import RobotsFetch
from auditor.sink import make_sink_queue, run_sink
from auditor.summary import ExitCode, Summary, exit_code
from auditor.tree import SitemapTree, UrlDedup
from auditor.walk import Frontier, Walker

log = logging.getLogger(__name__)
# A robots.txt read only to check a cross-submission waits at most this long.
QUICK_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class AuditResult:
    """What a run produced and how the process should exit."""

    summary: Summary
    json_path: Path
    complete: bool
    failed: bool  # an internal failure stopped the run (not the site's fault)
    targets: tuple[TargetRecord, ...]
    duration_s: float
    exit_code: ExitCode


async def audit(
    config: AuditConfig, *, clock: Clock | None = None, stop: asyncio.Event | None = None
) -> AuditResult:
    """Run one audit. Setting `stop` ends it early: the report is written, `complete` false."""
    clock = clock or SystemClock()
    started_at, started = clock.now(), clock.monotonic()
    writer = JsonReportWriter(await report_path(config, started_at))
    await writer.open()
    summary = Summary()
    run = _Run(config, clock, started_at, summary)
    failed = False
    try:
        complete = await run.walk(writer, stop)
    except BaseException as exc:
        lost = _write_failure(exc)
        if lost is not None or not isinstance(exc, Exception):
            await writer.discard()  # cancelled from outside, or the disk is full: no report
            raise lost or exc from None
        log.exception("the audit failed")  # a bug: still write what was gathered (DESIGN §2)
        complete, failed = False, True
    duration_s = clock.monotonic() - started
    targets = run.targets
    for target in targets:
        summary.add_target(target)
    head = head_json(generated_at=started_at, complete=complete, config=config)
    await writer.commit(
        head,
        targets=[target_json(target) for target in targets],
        summary=summary.to_json(duration_s=duration_s),
    )
    code = exit_code(summary, config.fail_on) if complete else ExitCode.FAILED
    return AuditResult(summary, writer.path, complete, failed, targets, duration_s, code)


def _write_failure(exc: BaseException) -> ReportWriteError | None:
    """The report-writing failure inside `exc` (a task group's exceptions), if any."""
    if isinstance(exc, ReportWriteError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if (found := _write_failure(inner)) is not None:
                return found
    return None


async def report_path(config: AuditConfig, now: datetime) -> Path:
    """`--json PATH`, else `<out>/<host>-<UTC timestamp>.json`, never overwriting a report."""
    if config.json is not None:
        return config.json
    stem = f"{config.targets[0].label}-{now.strftime('%Y%m%dT%H%M%SZ')}"
    path = config.out / f"{stem}.json"
    number = 1
    while await aiofiles.os.path.exists(path):
        number += 1
        path = config.out / f"{stem}-{number}.json"
    return path


class _Run:
    """One run's wiring: the HTTP client, the walker and the sink, in one task group."""

    def __init__(
        self, config: AuditConfig, clock: Clock, started_at: datetime, summary: Summary
    ) -> None:
        self._config = config
        self._clock = clock
        self._started_at = started_at
        self._summary = summary
        self.targets: tuple[TargetRecord, ...] = ()

    async def walk(self, writer: JsonReportWriter, stop: asyncio.Event | None) -> bool:
        """Walk the trees into the sink; False when stopped before the end."""
        config = self._config
        queue = make_sink_queue()
        client = HttpClient(
            user_agent=config.user_agent,
            headers=config.headers,
            concurrency=config.concurrency,
            per_host=config.per_host,
            allow_private=config.allow_private or await _a_target_is_private(config),
        )
        async with client, asyncio.TaskGroup() as group:
            group.create_task(run_sink(queue, writer=writer, summary=self._summary))
            rng = random.Random()  # noqa: S311 - jitter, not secrets
            follower = Follower(client, self._policy(), clock=self._clock, rng=rng)
            quick = Follower(client, self._quick_policy(), clock=self._clock, rng=rng)

            def robots(url: str, *, quick_lookup: bool) -> Awaitable[RobotsFetch]:
                chosen = quick if quick_lookup else follower
                return fetch_robots(chosen, url, clock=self._clock, rules=not quick_lookup)

            frontier: Frontier = asyncio.Queue()
            services = ReadServices(
                config=config,
                follower=follower,
                robots=RobotsCache(robots),
                tree=SitemapTree(max_depth=config.max_depth, max_sitemaps=config.max_sitemaps),
                dedup=UrlDedup(),
                clock=self._clock,
                now=self._started_at,
                enqueue=frontier.put_nowait,
                emit_urls=queue.put,
                emit_sitemap=queue.put,
            )
            walker = Walker(services, frontier)
            try:
                finished = await _until_stopped(walker.run(), stop)
            finally:
                self.targets = tuple(walker.target_records())
            await queue.put(None)
        return finished

    def _quick_policy(self) -> FetchPolicy:
        """Cross-submission look-ups: one try, at most QUICK_TIMEOUT_S."""
        quick_s = min(self._config.timeout_s, QUICK_TIMEOUT_S)
        return replace(
            self._policy(), timeouts=Timeouts(total_s=quick_s, idle_s=quick_s), retries=0
        )

    def _policy(self) -> FetchPolicy:
        config = self._config
        return FetchPolicy(
            timeouts=Timeouts(total_s=config.sitemap_timeout_s, idle_s=config.timeout_s),
            retries=config.retries,
            max_redirects=config.max_redirects,
            backoff_base_s=config.backoff_base_s,
            max_retry_after_s=config.max_retry_after_s,
        )


async def _a_target_is_private(config: AuditConfig) -> bool:
    """DESIGN §7: a target that is itself private allows private addresses for its run."""
    for target in config.targets:
        host = urlsplit(target.url).hostname if target.path is None else None
        if host and await is_private_host(host):
            return True
    return False


async def _until_stopped(work: Coroutine[Any, Any, None], stop: asyncio.Event | None) -> bool:
    """Run `work`; True when it finished, False when `stop` was set first (work cancelled)."""
    if stop is None:
        await work
        return True
    async with asyncio.TaskGroup() as group:
        working = group.create_task(work)
        stopping = group.create_task(stop.wait())
        await asyncio.wait({working, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finished = working.done()
        working.cancel()
        stopping.cancel()
    return finished

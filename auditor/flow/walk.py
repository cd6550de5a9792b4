"""The walk of one run: its HTTP parts, the walker, the check stage and the sink, wired.

targets -> walker (discovery, sitemap readers) -> check stage (bounded queue, N workers)
        -> bounded queue -> sink (summary, JSON writer).

See docs/explanation/design.md#pipeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial, reduce
from pathlib import Path
from typing import Any

from auditor.checks.alternate_targets import AlternateTargets
from auditor.checks.lastmod_rules import BehindPages
from auditor.checks.selection import Reservoir, UrlFilter
from auditor.checks.stage import CheckLoop, Checks, CheckStage, CheckWatcher, records_checked
from auditor.clock import Clock
from auditor.codes import Severity
from auditor.config import AuditConfig, checker_configs, parse_helpers
from auditor.http_stack import (
    Openers,
    check_transport,
    checker,
    http_client,
    openers,
    reach_of,
)
from auditor.models import TargetRecord
from auditor.net.address_guard import Reach
from auditor.net.host_gate import HostGate
from auditor.processes.check_pool import CheckPool
from auditor.processes.event_loop import until_stopped
from auditor.processes.parse_pool import ParsePool
from auditor.processes.watchdog import Stalled, stall_window_s, waits_text, watch
from auditor.results.dedup import UrlDedup
from auditor.results.samples import Samples
from auditor.results.sink import (
    Marks,
    Observer,
    RecordWriter,
    SinkQueue,
    Tee,
    make_sink_queue,
    run_sink,
)
from auditor.results.summary import Summary
from auditor.sitemap.alternates import EmitFindings, judge_alternates
from auditor.sitemap.hreflang_store import LinkStore
from auditor.sitemap.read_services import Lister, ReadServices
from auditor.sitemap.state_store import StateStore
from auditor.sitemap.tree_rules import SitemapTree
from auditor.sitemap.walker import Frontier, Walker
from auditor.wings.feature import CheckPlan, Lanes, Walked, WalkParts, Watch, Wing

PROGRESS_INTERVAL_S = 0.25


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a run is, for a progress display."""

    sitemaps: int  # documents read
    found: int  # distinct URLs found so far
    checked: int
    to_check: int | None  # known once every sitemap is read (None: still discovering)
    errors: int
    elapsed_s: float
    crawled: int | None = None  # pages the crawl requested while it runs (--crawl); else None


OnProgress = Callable[[Progress], None]


class Run:
    """One run's wiring: the HTTP client, the walker, the check stage and the sink."""

    def __init__(
        self,
        config: AuditConfig,
        clock: Clock,
        started_at: datetime,
        summary: Summary,
        *,
        samples: Samples,
        on_progress: OnProgress | None,
        observers: Sequence[Observer],
        state: StateStore | None,
        wings: Sequence[Wing] = (),
    ) -> None:
        """`observers`: fed by the sink too (--junit); `state`: --state; `wings`: the run's."""
        self.config = config
        self.clock = clock
        self.started_at = started_at
        self.summary = summary
        self.samples = samples
        self._on_progress = on_progress
        self._observers = observers
        self._state = state
        self._wings = wings
        self.targets: tuple[TargetRecord, ...] = ()
        self.stalled: str | None = None  # what a run the watchdog stopped waited for
        self.behind = BehindPages()  # lastmod.behind_page, judged once every page is checked
        self.marks: Marks | None = None  # known issues, marked as the sink takes each record

    async def walk(self, writer: RecordWriter, stop: asyncio.Event | None, *, links: Path) -> bool:
        """Walk the trees, check their URLs into the sink, the wings folded in; False if stopped.

        `links`: the run's temporary hreflang store (auditor.sitemap.hreflang_store).
        """
        config, clock = self.config, self.clock
        queue = make_sink_queue()
        reach = await reach_of(config)
        # Each sitemap reader may hold a body and a cross-submission look-up; one more for a
        # robots.txt a check asks for.
        client = http_client(config, reach=reach, spare=2 * config.sitemap_concurrency + 1)
        dedup: UrlDedup[Lister] = UrlDedup()
        parsers = ParsePool(parse_helpers(config))
        link_store = LinkStore(links)
        async with (
            client,
            check_transport(config, client, reach=reach) as transport,
            parsers,
            link_store,
            contextlib.AsyncExitStack() as stack,
            asyncio.TaskGroup() as group,
        ):
            rng = random.Random()  # noqa: S311 - jitter and sampling, not secrets
            tools = openers(config, client, clock=clock, rng=rng, checks=transport)
            parts = WalkParts(
                openers=tools,
                checker=partial(checker, config, tools, clock=clock),
                listed=dedup.__contains__,
                sink=queue.put,
                stack=stack,
            )
            alternates = AlternateTargets(link_store)
            watching = Watch(watchers=(self.behind, alternates))
            for wing in self._wings:
                watching = await wing.watch(parts, watching)
            self.marks = watching.marks
            group.create_task(self._sink(queue, writer, dedup, watching))
            plan = watching.plan
            stage = None
            if not config.no_check:
                stage = self._check_stage(
                    tools, reach, queue, rng, plan, watching=watching.watchers
                )
            lanes = Lanes(
                urls=stage.submit if stage is not None else queue.put,
                sitemaps=queue.put,
                watchers=watching.watchers,
            )
            lanes = reduce(lambda lanes, wing: wing.route(parts, lanes), self._wings, lanes)
            lanes = _judging(lanes, link_store, listed=dedup.__contains__, sink=queue.put)
            walker = self._walker(tools, dedup, parsers=parsers, links=link_store, lanes=lanes)
            if config.insecure:
                verify = partial(client.certificate_problem, timeout_s=config.timeout_s)
                walker.verify_with(verify)
            ticker = None
            if self._on_progress is not None:
                tick = self._tick(self._on_progress, dedup, stage, busy=lanes.busy)
                ticker = group.create_task(tick)
            try:
                work = _produce(walker, lanes, stage)
                finished = await self._watched(work, stop, gate=tools.gate)
            finally:
                self.targets = tuple(walker.target_records())
                if ticker is not None:
                    ticker.cancel()
            await lanes.ended(finished=finished)  # what the wings gathered, finished or not
            # What needs every URL checked: deploys' Last-Modified, where alternates lead.
            for found in (self.behind.findings(), await alternates.findings()):
                if found is not None:
                    await queue.put(found)
            await lanes.checked()
            await queue.put(None)
        return finished

    async def _watched(
        self, work: Coroutine[Any, Any, None], stop: asyncio.Event | None, *, gate: HostGate
    ) -> bool:
        """`work` until it ends, `stop` is set or the watchdog finds it stuck; whether it ended."""
        summary = self.summary

        def moves() -> int:
            return gate.moves + summary.sitemaps + summary.entries + summary.checked

        window_s = stall_window_s(self.config)
        watchdog = watch(
            moves, window_s=window_s, clock=self.clock, waits=lambda: waits_text(gate.waiting())
        )
        try:
            return await until_stopped(_beside(work, watchdog), stop)
        except* Stalled as stuck:
            self.stalled = str(stuck.exceptions[0])
        return False

    def _sink(
        self, queue: SinkQueue, writer: RecordWriter, dedup: UrlDedup[Lister], watching: Watch
    ) -> Coroutine[Any, Any, None]:
        """The one sink, fed by `queue`, writing to `writer` and to the wings' writers."""
        writers = (writer, *watching.writers)
        return run_sink(
            queue,
            writer=writers[0] if len(writers) == 1 else Tee(*writers),
            summary=self.summary,
            dedup=dedup,
            samples=self.samples,
            observers=(*self._observers, *watching.observers),
            marks=watching.marks,
        )

    def _walker(
        self,
        parts: Openers,
        dedup: UrlDedup[Lister],
        *,
        parsers: ParsePool,
        links: LinkStore,
        lanes: Lanes,
    ) -> Walker:
        """The walker of the run's trees, its services shared with the check stage and sink."""
        config = self.config
        frontier: Frontier = asyncio.Queue()
        services = ReadServices(
            config=config,
            opener=parts.documents,
            robots=parts.robots,
            tree=SitemapTree(max_depth=config.max_depth, max_sitemaps=config.max_sitemaps),
            dedup=dedup,
            clock=self.clock,
            now=self.started_at,
            enqueue=frontier.put_nowait,
            emit_urls=lanes.urls,
            emit_sitemap=lanes.sitemaps,
            state=self._state,
            parsers=parsers,
            links=links,
        )
        return Walker(services, frontier)

    def _check_stage(
        self,
        parts: Openers,
        reach: Reach,
        queue: SinkQueue,
        rng: random.Random,
        plan: CheckPlan | None,
        *,
        watching: Sequence[CheckWatcher],
    ) -> CheckStage:
        """URL checks in this process, or in `--workers` checker processes."""
        config = self.config
        emit = (
            plan.records_checked(queue.put, watchers=watching)
            if plan is not None
            else records_checked(queue.put, watchers=watching)
        )
        checks: Checks
        if config.workers > 1:
            checks = CheckPool(checker_configs(config), reach=reach, emit=emit)
        else:
            check = checker(config, parts, clock=self.clock)
            checks = CheckLoop(check, workers=config.concurrency, emit=emit)
        return CheckStage(
            checks,
            emit=queue.put,
            select=UrlFilter(config.include, config.exclude),
            sample=Reservoir(config.sample, rng) if config.sample is not None else None,
            plan=plan,
        )

    async def _tick(
        self,
        report: OnProgress,
        dedup: UrlDedup[Lister],
        stage: CheckStage | None,
        *,
        busy: Callable[[], int | None],
    ) -> None:
        summary, started = self.summary, self.clock.monotonic()
        while True:
            to_check: int | None = 0  # --no-check: nothing to request
            if stage is not None:
                to_check = stage.queued if stage.discovered else None
            report(
                Progress(
                    sitemaps=summary.sitemaps,
                    found=len(dedup),
                    checked=summary.checked,
                    to_check=to_check,
                    errors=summary.by_severity()[Severity.ERROR],
                    elapsed_s=self.clock.monotonic() - started,
                    crawled=busy(),
                )
            )
            await asyncio.sleep(PROGRESS_INTERVAL_S)


async def _beside(work: Coroutine[Any, Any, None], watchdog: Coroutine[Any, Any, None]) -> None:
    """`work`, with `watchdog` running beside it until it ends (Stalled ends both)."""
    async with asyncio.TaskGroup() as group:
        watching = group.create_task(watchdog)
        await work
        watching.cancel()


async def _produce(walker: Walker, lanes: Lanes, stage: CheckStage | None) -> None:
    """The wings' steps first (the crawl); then read every document; then what needs them all.

    With checks, URLs are checked as they come.
    """
    await lanes.before()
    if stage is None:
        await walker.run()
        await lanes.walked(Walked(walker.capped, tuple(walker.target_records())))
        return
    async with asyncio.TaskGroup() as group:
        group.create_task(stage.run())
        await walker.run()
        await lanes.walked(Walked(walker.capped, tuple(walker.target_records())))
        await stage.finish()


def _judging(
    lanes: Lanes, links: LinkStore, *, listed: Callable[[int], bool], sink: EmitFindings
) -> Lanes:
    """Once every sitemap is read, the run's hreflang return links are judged.

    The alternates no sitemap lists go on as the sitemaps' URL records do.
    """

    async def walked(walk: Walked) -> None:
        await lanes.walked(walk)
        await judge_alternates(links, listed=listed, emit_findings=sink, emit_urls=lanes.urls)

    return replace(lanes, walked=walked)

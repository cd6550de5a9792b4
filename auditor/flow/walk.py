"""The walk of one run: its HTTP parts, the walker, the check stage and the sink, wired.

targets -> walker (discovery, sitemap readers) -> check stage (bounded queue, N workers)
        -> bounded queue -> sink (summary, JSON writer).

See docs/explanation/design.md#pipeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.checks.alternate_targets import AlternateTargets
from auditor.checks.checker import Checker
from auditor.checks.lastmod_rules import BehindPages
from auditor.checks.selection import Reservoir, UrlFilter
from auditor.checks.stage import CheckLoop, Checks, CheckStage, CheckWatcher, records_checked
from auditor.clock import Clock
from auditor.codes import Severity
from auditor.config import AuditConfig, checker_configs, parse_helpers
from auditor.crawl.coverage import Coverage, EmitSummary
from auditor.crawl.crawler import Crawler, crawl_plan
from auditor.crawl.store import CrawlStore
from auditor.http_stack import (
    Openers,
    check_transport,
    checker,
    http_client,
    openers,
    reach_of,
)
from auditor.models import Relisted, SitemapRecord, TargetRecord
from auditor.net.address_guard import Reach
from auditor.net.host_gate import HostGate
from auditor.processes.check_pool import CheckPool
from auditor.processes.event_loop import until_stopped
from auditor.processes.parse_pool import ParsePool
from auditor.processes.watchdog import Stalled, stall_window_s, waits_text, watch
from auditor.results.acceptance import NO_RULES, AcceptRules
from auditor.results.dedup import UrlDedup
from auditor.results.last_known import HistoryCounts
from auditor.results.samples import Samples
from auditor.results.sink import Observer, RecordWriter, SinkQueue, make_sink_queue, run_sink
from auditor.results.summary import Summary
from auditor.sitemap.alternates import judge_alternates
from auditor.sitemap.hreflang_store import LinkStore
from auditor.sitemap.read_services import EmitSitemap, EmitUrls, Lister, ReadServices
from auditor.sitemap.state_store import StateStore
from auditor.sitemap.tree_rules import SitemapTree
from auditor.sitemap.walker import Frontier, Walker

if TYPE_CHECKING:
    from auditor.history.plan import HistoryPlan
    from auditor.history.store import HistoryStore, RunStart

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
        accept: AcceptRules = NO_RULES,
        history: tuple[HistoryStore, RunStart] | None = None,
    ) -> None:
        """`observers`: fed by the sink too (--junit); `state`: --state; `accept`: known issues.

        `history`: --history, open, and this run begun in it.
        """
        self.config = config
        self.clock = clock
        self.started_at = started_at
        self.summary = summary
        self.samples = samples
        self._on_progress = on_progress
        self._observers = observers
        self._state = state
        self.accept = accept
        self._history = history
        self.targets: tuple[TargetRecord, ...] = ()
        self.stalled: str | None = None  # what a run the watchdog stopped waited for
        self.behind = BehindPages()  # lastmod.behind_page, judged once every page is checked

    async def walk(
        self, writer: RecordWriter, stop: asyncio.Event | None, *, paths: tuple[Path, Path]
    ) -> bool:
        """Crawl (--crawl), walk the trees, check their URLs into the sink; False if stopped.

        `paths`: the run's temporary hreflang store (auditor.sitemap.hreflang_store) and crawl
        store (auditor.crawl.store).
        """
        config, clock = self.config, self.clock
        queue = make_sink_queue()
        reach = await reach_of(config)
        # Each sitemap reader may hold a body and a cross-submission look-up; one more for a
        # robots.txt a check asks for.
        client = http_client(config, reach=reach, spare=2 * config.sitemap_concurrency + 1)
        dedup: UrlDedup[Lister] = UrlDedup()
        parsers = ParsePool(parse_helpers(config))
        links = LinkStore(paths[0])
        async with (
            client,
            check_transport(config, client, reach=reach) as transport,
            parsers,
            links,
            CrawlStore(paths[1]) as crawl_store,
            asyncio.TaskGroup() as group,
        ):
            group.create_task(self._sink(queue, writer, dedup))
            rng = random.Random()  # noqa: S311 - jitter and sampling, not secrets
            parts = openers(config, client, clock=clock, rng=rng, checks=transport)
            async with self._planned(queue, paths[0].parent, dedup.__contains__) as plan:
                stage, alternates = None, AlternateTargets(links)
                if not config.no_check:
                    stage = self._check_stage(
                        parts, reach, queue, rng, plan, watchers=(alternates,)
                    )
                emit_urls = stage.submit if stage is not None else queue.put
                crawl: _Crawl | None = None
                if config.crawl:
                    check = checker(config, parts, clock=clock)
                    crawl = _Crawl(config, check, parts, crawl_store)
                    crawl.join(
                        listed=dedup.__contains__,
                        emit_checked=queue.put,
                        emit=emit_urls,
                        watchers=(self.behind, alternates),
                    )
                    emit_urls = crawl.coverage.submit
                walker = self._walker(
                    parts,
                    dedup,
                    parsers=parsers,
                    links=links,
                    emit_urls=emit_urls,
                    emit_sitemap=crawl.watching(queue.put) if crawl else queue.put,
                )
                if config.insecure:
                    verify = partial(client.certificate_problem, timeout_s=config.timeout_s)
                    walker.verify_with(verify)
                ticker = None
                if self._on_progress is not None:
                    tick = self._tick(self._on_progress, dedup, stage, crawl=crawl)
                    ticker = group.create_task(tick)
                try:
                    # Once every sitemap is read, the run's hreflang return links are judged.
                    judge: Callable[[], Awaitable[object]] = partial(
                        judge_alternates,
                        links,
                        listed=dedup.__contains__,
                        emit_findings=queue.put,
                        emit_urls=emit_urls,
                    )
                    if crawl is not None:
                        judge = crawl.after_walk(walker, judge)
                    work = _produce(walker, judge, stage, crawl=crawl.run if crawl else None)
                    finished = await self._watched(work, stop, gate=parts.gate)
                finally:
                    self.targets = tuple(walker.target_records())
                    if ticker is not None:
                        ticker.cancel()
                if crawl is not None:  # what the crawl gathered, whether or not the run finished
                    await crawl.finish(walked=finished, emit_summary=queue.put)
                if plan is not None:
                    plan.complete = finished
            # What needs every URL checked: deploys' Last-Modified, where alternates lead.
            for found in (self.behind.findings(), await alternates.findings()):
                if found is not None:
                    await queue.put(found)
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
        self, queue: SinkQueue, writer: RecordWriter, dedup: UrlDedup[Lister]
    ) -> Coroutine[Any, Any, None]:
        """The one sink, fed by `queue`, writing to `writer`."""
        return run_sink(
            queue,
            writer=writer,
            summary=self.summary,
            dedup=dedup,
            samples=self.samples,
            observers=self._observers,
            accept=self.accept,
        )

    @contextlib.asynccontextmanager
    async def _planned(
        self, queue: SinkQueue, folder: Path, listed: Callable[[int], bool]
    ) -> AsyncIterator[HistoryPlan | None]:
        """With --history, the plan of the run's requests.

        On the way out, whatever happened, what was checked is kept, and a run that did not
        complete can be resumed.
        """
        plan = await self._plan(queue, folder=folder)
        try:
            yield plan
        finally:
            if plan is not None:
                await plan.finish(listed=listed)

    def _walker(
        self,
        parts: Openers,
        dedup: UrlDedup[Lister],
        *,
        parsers: ParsePool,
        links: LinkStore,
        emit_urls: EmitUrls,
        emit_sitemap: EmitSitemap,
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
            emit_urls=emit_urls,
            emit_sitemap=emit_sitemap,
            state=self._state,
            parsers=parsers,
            links=links,
        )
        return Walker(services, frontier)

    async def _plan(self, queue: SinkQueue, *, folder: Path) -> HistoryPlan | None:
        """With --history: the plan of the run's requests, its counts in the summary."""
        if self._history is None:
            return None
        from auditor.history.plan import Budget, HistoryPlan  # noqa: PLC0415

        config, (store, start) = self.config, self._history
        counts = HistoryCounts()
        self.summary.keep_history(counts, now_s=self.started_at.timestamp())
        budget = Budget(config.budget, config.budget_time_s, config.max_age_days)
        return await HistoryPlan.create(
            store,
            start,
            budget=budget,
            clock=self.clock,
            counts=counts,
            folder=folder,
            report=queue.put,
            window=2 * config.concurrency,  # the checks never wait; a time budget stays close
        )

    def _check_stage(
        self,
        parts: Openers,
        reach: Reach,
        queue: SinkQueue,
        rng: random.Random,
        plan: HistoryPlan | None,
        *,
        watchers: Sequence[CheckWatcher],
    ) -> CheckStage:
        """URL checks in this process, or in `--workers` checker processes."""
        config = self.config
        watching = (self.behind, *watchers)
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
        crawl: _Crawl | None,
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
                    crawled=crawl.crawler.requested if crawl and not crawl.done else None,
                )
            )
            await asyncio.sleep(PROGRESS_INTERVAL_S)


class _Crawl:
    """The run's crawl (--crawl), and the coverage that holds the sitemaps against it."""

    def __init__(
        self, config: AuditConfig, check: Checker, parts: Openers, store: CrawlStore
    ) -> None:
        self.plan = crawl_plan(config)
        self.deep_clicks = config.deep_clicks
        self.store = store
        self.crawler = Crawler(check, robots=parts.robots.get, store=store, plan=self.plan)
        self.done = False
        self._coverage: Coverage | None = None

    @property
    def coverage(self) -> Coverage:
        """The join of the sitemaps' URLs with the crawl (`join` makes it)."""
        assert self._coverage is not None
        return self._coverage

    def join(
        self,
        *,
        listed: Callable[[int], bool],
        emit_checked: EmitUrls,
        emit: EmitUrls,
        watchers: Sequence[CheckWatcher],
    ) -> None:
        """Where the sitemaps' URL records go once joined (see auditor.crawl.coverage).

        `watchers` see each listed URL the crawl checked, as the check stage's see the others.
        """
        self._coverage = Coverage(
            self.crawler,
            self.store,
            scope=self.plan.scope,
            deep_clicks=self.deep_clicks,
            listed=listed,
            emit_checked=emit_checked,
            emit=emit,
            watchers=watchers,
        )

    async def run(self) -> None:
        """Crawl the site; the sitemaps are read once it is over (auditor.crawl.coverage)."""
        await self.crawler.run()
        self.done = True
        await self.coverage.crawled(interrupted=False)

    def watching(self, emit: EmitSitemap) -> EmitSitemap:
        """`emit`, each document shown to coverage first (was it read whole?)."""

        async def seen(item: SitemapRecord | Relisted) -> None:
            if isinstance(item, SitemapRecord):
                self.coverage.saw_sitemap(item)
            await emit(item)

        return seen

    def after_walk(
        self, walker: Walker, then: Callable[[], Awaitable[object]]
    ) -> Callable[[], Awaitable[object]]:
        """`then`, once coverage knows whether the walk read every sitemap whole."""

        async def walked() -> object:
            self.coverage.sitemaps_done(capped=walker.capped, targets=walker.target_records())
            return await then()

        return walked

    async def finish(self, *, walked: bool, emit_summary: EmitSummary) -> None:
        """The pages only the crawl found, and its summary, to the sink."""
        await self.coverage.finish(
            walked=walked, interrupted=not self.done, emit_summary=emit_summary
        )


async def _beside(work: Coroutine[Any, Any, None], watchdog: Coroutine[Any, Any, None]) -> None:
    """`work`, with `watchdog` running beside it until it ends (Stalled ends both)."""
    async with asyncio.TaskGroup() as group:
        watching = group.create_task(watchdog)
        await work
        watching.cancel()


async def _produce(
    walker: Walker,
    then: Callable[[], Awaitable[object]],
    stage: CheckStage | None,
    *,
    crawl: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Crawl first (--crawl); then read every document, then what needs them all.

    With checks, URLs are checked as they come.
    """
    if crawl is not None:
        await crawl()
    if stage is None:
        await walker.run()
        await then()
        return
    async with asyncio.TaskGroup() as group:
        group.create_task(stage.run())
        await walker.run()
        await then()
        await stage.finish()

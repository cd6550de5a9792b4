"""The walk of one run: its HTTP parts, the walker, the check stage and the sink, wired.

targets -> walker (discovery, sitemap readers) -> check stage (bounded queue, N workers)
        -> bounded queue -> sink (summary, JSON writer).

The enabled wings are folded in twice (auditor.wings.feature): what watches the records, before
the stages are made, then the streams and steps they route. See docs/explanation/design.md#wings.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Coroutine, Sequence
from datetime import datetime
from functools import partial, reduce
from typing import TYPE_CHECKING, Any

from auditor.checks.lastmod_rules import BehindPages
from auditor.clock import Clock
from auditor.config import AuditConfig
from auditor.flow.ticker import OnProgress, tick
from auditor.http_stack import Openers, check_engine, openers, reach_of, run_transport
from auditor.models import TargetRecord
from auditor.processes.event_loop import until_stopped
from auditor.processes.shares import parse_helpers
from auditor.processes.watchdog import Stalled, stall_window_s, waits_text, watch
from auditor.results.dedup import UrlDedup
from auditor.results.samples import Samples
from auditor.results.sink import (
    Marks,
    ReportWriter,
    SinkQueue,
    Tee,
    make_sink_queue,
    run_sink,
)
from auditor.results.summary import Summary
from auditor.sitemap.parsers import InProcessParsers, Parsers
from auditor.sitemap.read_services import Lister, ReadServices
from auditor.sitemap.state_store import StateStore
from auditor.sitemap.tree_rules import SitemapTree
from auditor.sitemap.walker import Frontier, Walker
from auditor.wings.feature import Lanes, Walked, WalkParts, Watch, Wing

if TYPE_CHECKING:  # the check path: not with --no-check (docs/explanation/design.md#engine)
    from auditor.checks.engine import CheckEngine
    from auditor.checks.stage import CheckStage


class Run:
    """One run's wiring: the HTTP client, the walker, the check stage, the sink and the wings."""

    def __init__(
        self,
        config: AuditConfig,
        clock: Clock,
        started_at: datetime,
        *,
        state: StateStore | None,
        wings: Sequence[Wing] = (),
        on_progress: OnProgress | None = None,
    ) -> None:
        """`state`: --state; `wings`: the run's, open; `on_progress`: told where the run is."""
        self.config = config
        self.clock = clock
        self.started_at = started_at
        self.summary = Summary()
        self.samples = Samples()
        self._state = state
        self._wings = wings
        self._on_progress = on_progress
        self.targets: tuple[TargetRecord, ...] = ()
        self.stalled: str | None = None  # what a run the watchdog stopped waited for
        self.behind = BehindPages()  # lastmod.behind_page, judged once every page is checked
        self.marks: Marks | None = None  # known issues, marked as the sink takes each record

    async def walk(self, writer: ReportWriter, stop: asyncio.Event | None) -> bool:
        """Walk the trees, check their URLs into the sink, the wings folded in; False if stopped."""
        config = self.config
        queue = make_sink_queue()
        reach = await reach_of(config)
        # Each sitemap reader may hold a body and a cross-submission look-up; one more for a
        # robots.txt a check asks for.
        spare = 2 * config.sitemap_concurrency + 1
        dedup: UrlDedup[Lister] = UrlDedup()
        async with (
            run_transport(config, reach=reach, spare=spare) as transport,
            _parsers(config) as parsers,
            contextlib.AsyncExitStack() as stack,  # the wings' stores: closed after the sink
            asyncio.TaskGroup() as group,
        ):
            rng = random.Random()  # noqa: S311 - jitter and sampling, not secrets
            tools = openers(config, transport, clock=self.clock, rng=rng)
            # One engine for the crawl and the checks here: one request a URL, whatever role it
            # plays (docs/explanation/design.md#engine).
            check = check_engine(config, tools, clock=self.clock)
            stack.push_async_callback(check.aclose)
            parts = WalkParts(tools, check, dedup.__contains__, queue.put, stack)
            watching = await self._watch(parts)
            group.create_task(self._sink(queue, writer, dedup, watching))
            stage = None
            if not config.no_check:
                stage = self._check_stage(check, queue, rng, watching)
            urls = stage.submit if stage is not None else queue.put
            lanes = Lanes(urls, queue.put, watching.watchers)
            lanes = reduce(lambda lanes, wing: wing.route(parts, lanes), self._wings, lanes)
            walker = self._walker(tools, dedup, parsers=parsers, watching=watching, lanes=lanes)
            if config.insecure:
                verify = partial(transport.certificate_problem, timeout_s=config.timeout_s)
                walker.verify_with(verify)
            async with self._ticking(group, dedup, stage, lanes):
                try:
                    finished = await self._watched(_produce(walker, lanes, stage), stop, tools)
                finally:
                    self.targets = tuple(walker.target_records())
            # What the wings gathered, finished or not.
            await lanes.ended(finished=finished, targets=self.targets)
            # What needs every URL checked: deploys' Last-Modified; then the wings'.
            behind = self.behind.findings()
            if behind is not None:
                await queue.put(behind)
            await lanes.checked()
            await queue.put(None)
        return finished

    async def _watch(self, parts: WalkParts) -> Watch:
        """What watches the run's records: this run's own, then each wing's in turn."""
        watching = Watch(watchers=(self.behind,))
        for wing in self._wings:
            watching = await wing.watch(parts, watching)
        self.marks = watching.marks
        return watching

    async def _watched(
        self, work: Coroutine[Any, Any, None], stop: asyncio.Event | None, tools: Openers
    ) -> bool:
        """`work` until it ends, `stop` is set or the watchdog finds it stuck; whether it ended."""
        summary, gate = self.summary, tools.gate

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
        self, queue: SinkQueue, writer: ReportWriter, dedup: UrlDedup[Lister], watching: Watch
    ) -> Coroutine[Any, Any, None]:
        """The one sink, fed by `queue`, writing to `writer` and to the wings' writers."""
        return run_sink(
            queue,
            writer=Tee(writer, *watching.writers) if watching.writers else writer,
            summary=self.summary,
            dedup=dedup,
            samples=self.samples,
            observers=watching.observers,
            marks=watching.marks,
            joins=watching.joins,
        )

    def _walker(
        self,
        tools: Openers,
        dedup: UrlDedup[Lister],
        *,
        parsers: Parsers,
        watching: Watch,
        lanes: Lanes,
    ) -> Walker:
        """The walker of the run's trees, its services shared with the check stage and sink."""
        config = self.config
        frontier: Frontier = asyncio.Queue()
        services = ReadServices(
            config=config,
            opener=tools.documents,
            robots=tools.robots,
            tree=SitemapTree(max_depth=config.max_depth, max_sitemaps=config.max_sitemaps),
            dedup=dedup,
            clock=self.clock,
            now=self.started_at,
            enqueue=frontier.put_nowait,
            emit_urls=lanes.urls,
            emit_sitemap=lanes.sitemaps,
            state=self._state,
            parsers=parsers,
            links=watching.clusters,
        )
        return Walker(services, frontier)

    def _check_stage(
        self, check: CheckEngine[Any], queue: SinkQueue, rng: random.Random, watching: Watch
    ) -> CheckStage:
        """URL checks in this thread, by the run's one engine.

        Each check is shown to the watchers, through the wings' plan where one is given (which
        keeps, too, the answered checks a stop held back).
        """
        # The check path is loaded only where URLs are checked (not with --no-check).
        from auditor.checks.selection import Reservoir, UrlFilter  # noqa: PLC0415
        from auditor.checks.stage import CheckStage, records_checked  # noqa: PLC0415

        config, plan, watchers = self.config, watching.plan, watching.watchers
        emit, keep = records_checked(queue.put, watchers=watchers), None
        if plan is not None:
            emit, keep = plan.records_checked(queue.put, watchers=watchers), plan.keep_checked
        check.hand_to(emit, keep=keep)
        return CheckStage(
            check,
            emit=queue.put,
            select=UrlFilter(config.include, config.exclude),
            sample=Reservoir(config.sample, rng) if config.sample is not None else None,
            plan=plan,
        )

    @contextlib.asynccontextmanager
    async def _ticking(
        self,
        group: asyncio.TaskGroup,
        dedup: UrlDedup[Lister],
        stage: CheckStage | None,
        lanes: Lanes,
    ) -> AsyncIterator[None]:
        """While inside: where the run is, told a few times a second (with `on_progress`)."""
        report = self._on_progress
        if report is None:
            yield
            return
        found = dedup.__len__
        ticking = tick(
            report, self.summary, found=found, stage=stage, busy=lanes.busy, clock=self.clock
        )
        ticker = group.create_task(ticking)
        try:
            yield
        finally:
            ticker.cancel()


def _parsers(config: AuditConfig) -> contextlib.AbstractAsyncContextManager[Parsers]:
    """Where documents are parsed: here, or in helper processes too (--workers, --no-check)."""
    helpers = parse_helpers(config)
    if not helpers:
        return contextlib.nullcontext(InProcessParsers())
    from auditor.processes.parse_pool import ParsePool  # noqa: PLC0415 - only with helpers

    return ParsePool(helpers)


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

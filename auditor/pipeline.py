"""The composition root: the only module that sees every stage.

targets -> walker (discovery, sitemap readers) -> check stage (bounded queue, N workers)
        -> bounded queue -> sink (summary, JSON writer).

See docs/explanation/design.md#pipeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
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
from auditor.clock import Clock, SystemClock
from auditor.codes import Severity
from auditor.config import AuditConfig, checker_configs, parse_helpers
from auditor.crawl.coverage import Coverage, EmitSummary
from auditor.crawl.crawler import Crawler, crawl_plan
from auditor.crawl.store import CrawlStore
from auditor.crawl.store import store_path as crawl_store_path
from auditor.errors import ConfigError, ExitCode, write_failure_in
from auditor.files import read_input
from auditor.http_stack import (
    Openers,
    check_transport,
    checker,
    http_client,
    openers,
    reach_of,
    usable_engine,
)
from auditor.limits import MAX_ACCEPT_FILE_BYTES
from auditor.models import Relisted, SitemapRecord, TargetRecord
from auditor.monitoring.compare import DropLimit, Gate
from auditor.net.address_guard import Reach
from auditor.net.host_gate import HostGate
from auditor.processes.check_pool import CheckPool
from auditor.processes.event_loop import until_stopped
from auditor.processes.parse_pool import ParsePool
from auditor.processes.watchdog import Stalled, stall_window_s, waits_text, watch
from auditor.report.csv_writer import CsvWriter
from auditor.report.encode import Json
from auditor.report.failing import FailingUrls
from auditor.report.json_writer import JsonReportWriter
from auditor.report.junit import JunitCases
from auditor.report.markdown import MAX_BYTES
from auditor.report.publish import FinishedRun, open_outputs, publish, report_path
from auditor.results.acceptance import NO_RULES, AcceptRules, parse_accept_rules
from auditor.results.dedup import UrlDedup
from auditor.results.last_known import HistoryCounts
from auditor.results.reach import outage, outage_text
from auditor.results.samples import Samples
from auditor.results.sink import Observer, RecordWriter, SinkQueue, Tee, make_sink_queue, run_sink
from auditor.results.summary import Summary
from auditor.results.verdict import Decision, Verdict, judge
from auditor.sitemap.alternates import judge_alternates
from auditor.sitemap.hreflang_store import LinkStore, store_path
from auditor.sitemap.read_services import EmitSitemap, EmitUrls, Lister, ReadServices
from auditor.sitemap.state_store import StateStore
from auditor.sitemap.tree_rules import SitemapTree
from auditor.sitemap.walker import Frontier, Walker

if TYPE_CHECKING:
    from auditor.history.plan import HistoryPlan
    from auditor.history.store import HistoryStore, RunStart
    from auditor.monitoring.store import Comparison

log = logging.getLogger(__name__)
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


@dataclass(frozen=True, slots=True)
class AuditResult:
    """What a run produced and how the process should exit."""

    summary: Summary
    json_path: Path
    html_path: Path
    complete: bool
    failed: bool  # an internal failure stopped the run (not the site's fault)
    targets: tuple[TargetRecord, ...]
    duration_s: float
    samples: Samples  # bounded examples, for the HTML report and the terminal
    decision: Decision  # the one decision: exit code and verdict (auditor.results.verdict)
    diff: Json | None = None  # the report's `diff` (with --baseline)
    started_at: datetime | None = None  # when the run began (its reports' names say so)

    @property
    def exit_code(self) -> ExitCode:
        """How the process should exit (docs/explanation/design.md#exit-codes)."""
        return self.decision.exit_code

    @property
    def verdict(self) -> Verdict:
        """The verdict line the terminal and the HTML report show."""
        return self.decision.verdict


async def audit(
    config: AuditConfig,
    *,
    clock: Clock | None = None,
    stop: asyncio.Event | None = None,
    on_progress: OnProgress | None = None,
) -> AuditResult:
    """Run one audit. Setting `stop` ends it early: the report is written, `complete` false.

    `on_progress` is called a few times a second with where the run is.
    """
    clock = clock or SystemClock()
    config = usable_engine(config)  # aiohttp, said once, when pycurl cannot be imported
    started_at, started = clock.now(), clock.monotonic()
    accept = await _accept_rules(config)
    json_path = await report_path(config, started_at)
    async with contextlib.AsyncExitStack() as stack:
        # Before the report: a bad baseline or history is a usage error, and nothing is written.
        comparison = await _comparison(config, json_path, accept)
        if comparison is not None:
            await stack.enter_async_context(comparison)
        history = await _history(config, started_at, stack)
        # An unusable state is a warning, and the run goes on as without one.
        state = await StateStore.load(config.state, clock=clock) if config.state else None
        writer, csv = await open_outputs(config, json_path)
        junit = None
        if config.junit is not None:
            async with _discarded_on_failure(writer, csv):
                junit = await _junit_cases(config, json_path.parent)
            await stack.enter_async_context(junit)
        failing = FailingUrls(config.fail_on, budget_bytes=MAX_BYTES) if config.markdown else None
        run = _Run(
            config,
            clock,
            started_at,
            Summary(),
            samples=Samples(),
            on_progress=on_progress,
            observers=[],
            state=state,
            accept=accept,
            history=history,
        )
        records = [item for item in (writer, csv, comparison, junit, failing) if item is not None]
        complete, failed = await _walk_or_fail(run, writer, stop, records=records, csv=csv)
        if state is not None:  # an incomplete run keeps the entries of sitemaps it did not reach
            await state.save(complete=complete and not outage(run.targets))
        async with _discarded_on_failure(writer, csv):  # the comparison's disk
            finished = await _conclude(
                run,
                complete=complete,
                failed=failed,
                comparison=comparison,
                junit=junit,
                failing=failing,
                started=started,
            )
        html_path = await publish(
            writer, finished, junit=junit, csv=csv, regressions=comparison, failing=failing
        )
    return AuditResult(
        run.summary,
        writer.path,
        html_path,
        complete,
        failed,
        run.targets,
        finished.duration_s,
        run.samples,
        finished.decision,
        finished.diff,
        started_at,
    )


async def _conclude(
    run: _Run,
    *,
    complete: bool,
    failed: bool,
    comparison: Comparison | None,
    junit: JunitCases | None,
    failing: FailingUrls | None,
    started: float,
) -> FinishedRun:
    """The run's last counts (its targets, the comparison with the baseline), its decision."""
    summary, samples, config = run.summary, run.samples, run.config
    run.targets = tuple(run.accept.mark_target(target) for target in run.targets)
    causes = outage(run.targets)  # no target answered at all (auditor.results.reach)
    for target in run.targets:
        summary.add_target(target)
        samples.add_target(target)
        if junit is not None:
            junit.add_target(target, unreachable=bool(causes))
        if failing is not None:
            failing.add_target(target)
        if comparison is not None:
            comparison.add_target(target)
    diff_out = await comparison.finish() if comparison is not None else None
    decision = judge(
        summary,
        samples,
        fail_on=config.fail_on,
        complete=complete,
        failed=failed,
        regressions=comparison.regressions if comparison is not None else None,
        stalled=run.stalled,
        unreachable=outage_text(causes) if causes else None,
    )
    return FinishedRun(
        config=config,
        started_at=run.started_at,
        finished_at_s=run.clock.now().timestamp(),
        duration_s=run.clock.monotonic() - started,
        complete=complete,
        summary=summary,
        samples=samples,
        targets=run.targets,
        decision=decision,
        diff=diff_out,
        unreachable=bool(causes),
    )


@contextlib.asynccontextmanager
async def _discarded_on_failure(
    writer: JsonReportWriter, csv: CsvWriter | None
) -> AsyncIterator[None]:
    """A step between opening the outputs and publishing them.

    When it fails (a full disk: exit 3), no spool of theirs is left behind.
    """
    try:
        yield
    except BaseException:
        await writer.discard()
        if csv is not None:
            await csv.discard()
        raise


async def _walk_or_fail(
    run: _Run,
    writer: JsonReportWriter,
    stop: asyncio.Event | None,
    *,
    records: Sequence[RecordWriter],
    csv: CsvWriter | None,
) -> tuple[bool, bool]:
    """Walk the run: whether it completed, and whether an internal failure stopped it.

    A bug still writes what was gathered (docs/explanation/design.md#exit-codes); a cancellation
    from outside, or a file of the run that cannot be written (a full disk: a report, a scratch
    file, the history, whose earlier runs' rows are kept), leaves no report at all.
    """
    try:
        tee = records[0] if len(records) == 1 else Tee(*records)
        paths = (store_path(writer.path), crawl_store_path(writer.path))
        return await run.walk(tee, stop, paths=paths), False
    except BaseException as exc:
        lost = write_failure_in(exc)
        if lost is not None or not isinstance(exc, Exception):
            await writer.discard()
            if csv is not None:
                await csv.discard()
            raise lost or exc from None
        log.exception("the audit failed")
        return False, True


async def _junit_cases(config: AuditConfig, folder: Path) -> JunitCases:
    """`--junit`'s cases, spooled beside the report (made in a thread: it creates a file)."""

    def made() -> JunitCases:  # local sitemaps are named relative to the current folder
        only = config.junit_failures_only
        return JunitCases(folder, config.fail_on, failures_only=only, workspace=Path.cwd())

    return await asyncio.to_thread(made)


async def _accept_rules(config: AuditConfig) -> AcceptRules:
    """`--accept-file`'s rules (ConfigError, a usage error, naming a bad line)."""
    path = config.accept_file
    if path is None:
        return NO_RULES
    try:
        data = await asyncio.to_thread(read_input, path, max_bytes=MAX_ACCEPT_FILE_BYTES)
        text = data.decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"--accept-file {path}: cannot read it ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"--accept-file {path}: not UTF-8 text ({exc.reason})") from None
    return parse_accept_rules(text, source=f"--accept-file {path}")


async def _history(
    config: AuditConfig, started_at: datetime, stack: contextlib.AsyncExitStack
) -> tuple[HistoryStore, RunStart] | None:
    """`--history`: the file open and locked until `stack` closes, this run begun in it.

    HistoryError (exit 2) when it cannot be used.
    """
    if config.history is None:
        return None
    from auditor.history.store import HistoryStore  # noqa: PLC0415 - only with --history

    store = await asyncio.to_thread(HistoryStore.open, config.history)
    stack.push_async_callback(asyncio.to_thread, store.close)
    targets = "\n".join(target.input for target in config.targets)
    start = await asyncio.to_thread(
        store.begin, targets, resume=config.resume, now_s=int(started_at.timestamp())
    )
    return store, start


async def _comparison(
    config: AuditConfig, json_path: Path, accept: AcceptRules
) -> Comparison | None:
    """The comparison with `--baseline`, its file read (BaselineError when it cannot be)."""
    if config.baseline is None:
        return None
    # The report format's reader and sqlite, only for --baseline.
    from auditor.monitoring.baseline import open_comparison  # noqa: PLC0415

    gate = Gate(config.fail_on_new, accept, DropLimit(config.max_drop, config.max_drop_urls))
    return await open_comparison(config.baseline, folder=json_path.parent, gate=gate)


class _Run:
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
                # One checker for the crawl and the checks here: one request a URL, whatever
                # role it plays (auditor.checks.visits).
                check = checker(config, parts, clock=clock)
                stage, alternates = None, AlternateTargets(links)
                if not config.no_check:
                    stage = self._check_stage(
                        check, reach, queue, rng, plan, watchers=(alternates,)
                    )
                emit_urls = stage.submit if stage is not None else queue.put
                crawl: _Crawl | None = None
                if config.crawl:
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
                if plan is not None:  # what a stop kept from the sink goes to it now
                    await plan.ended(complete=finished)
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
            if plan is not None:  # an outage lists nothing: no URL is forgotten for it
                await plan.finish(listed=_listed_all if outage(self.targets) else listed)

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
        check: Checker,
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
        emit = records_checked(queue.put, watchers=watching)
        keep = None  # with a history, a stop's answered checks are kept, never lost
        if plan is not None:
            emit, keep = plan.records_checked(queue.put, watchers=watching), plan.keep_checked
        checks: Checks
        if config.workers > 1:
            checks = CheckPool(checker_configs(config), reach=reach, emit=emit, keep=keep)
        else:
            checks = CheckLoop(check, workers=config.concurrency, emit=emit, keep=keep)
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
        self.check = check
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
            leads=self.check.canonical_leads,
            watchers=watchers,
        )
        # A canonical the crawl requested is not requested again.
        self.check.learn_from(self._coverage.verdict_of)

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


def _listed_all(_digest: int) -> bool:
    return True


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

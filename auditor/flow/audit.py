"""One audit, from its configuration to its outputs: the composition root.

It opens the enabled wings and the outputs, has the run walked (auditor.flow.walk), takes the
wings' sections, decides, and publishes. See docs/explanation/design.md#pipeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.clock import Clock, SystemClock
from auditor.config import AuditConfig
from auditor.errors import ExitCode, write_failure_in
from auditor.flow.registry import WINGS
from auditor.flow.ticker import OnProgress
from auditor.flow.walk import Run
from auditor.http_stack import usable_engine
from auditor.models import TargetRecord
from auditor.report.encode import Json
from auditor.report.failing import FailingUrls
from auditor.report.json_writer import JsonReportWriter
from auditor.report.markdown import MAX_BYTES
from auditor.report.publish import FinishedRun, open_outputs, publish, report_path
from auditor.report.section import Section, placed
from auditor.results.reach import outage, outage_text
from auditor.results.samples import Samples
from auditor.results.sink import RecordWriter, Tee
from auditor.results.summary import Summary
from auditor.results.verdict import Decision, Verdict, judge
from auditor.sitemap.state_store import StateStore
from auditor.wings.feature import Conclusion, Opening, Wing

if TYPE_CHECKING:  # each only with its option: --csv, --junit
    from auditor.report.csv_writer import CsvWriter
    from auditor.report.junit import JunitCases

log = logging.getLogger(__name__)


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
    sections: tuple[Section, ...] = ()  # the wings' parts of the report (auditor.report.section)

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
    json_path = await report_path(config, started_at)
    async with contextlib.AsyncExitStack() as stack:
        # Before the report: a wing's file it cannot use is a usage error, and nothing is written.
        opening = Opening(config, clock, started_at, json_path, stack, stop)
        wings = [wing for feature in WINGS if (wing := await feature.open(opening)) is not None]
        # An unusable state is a warning, and the run goes on as without one.
        state = await StateStore.load(config.state, clock=clock) if config.state else None
        writer, csv = await open_outputs(config, json_path)
        junit = None
        if config.junit is not None:
            async with _discarded_on_failure(writer, csv):
                junit = await _junit_cases(config, json_path.parent)
            await stack.enter_async_context(junit)
        run = Run(config, clock, started_at, state=state, wings=wings, on_progress=on_progress)
        failing = FailingUrls(config.fail_on, budget_bytes=MAX_BYTES) if config.markdown else None
        records = [item for item in (csv, junit, failing) if item is not None]
        complete, failed = await _walk_or_fail(run, writer, stop, records=records, csv=csv)
        if state is not None:  # an incomplete run keeps the entries of sitemaps it did not reach
            await state.save(complete=complete and not outage(run.targets))
        async with _discarded_on_failure(writer, csv):  # a wing's disk (the comparison's)
            ended = await _conclude(
                run,
                wings,
                outputs=(junit, failing),
                complete=complete,
                failed=failed,
                started=started,
            )
        html_path = await publish(writer, ended, junit=junit, csv=csv, failing=failing)
    return AuditResult(
        run.summary,
        writer.path,
        html_path,
        complete,
        failed,
        run.targets,
        ended.duration_s,
        run.samples,
        ended.decision,
        _diff(ended.sections),
        started_at,
        ended.sections,
    )


async def _conclude(
    run: Run,
    wings: Sequence[Wing],
    *,
    outputs: tuple[JunitCases | None, FailingUrls | None],
    complete: bool,
    failed: bool,
    started: float,
) -> FinishedRun:
    """The run's last counts (its targets), the wings' sections, its decision.

    `outputs`: the JUnit cases and the Markdown's failing URLs, told the targets too.
    """
    summary, samples, config, marks = run.summary, run.samples, run.config, run.marks
    junit, failing = outputs
    if marks is not None:
        run.targets = tuple(marks.mark_target(target) for target in run.targets)
    causes = outage(run.targets)  # no target answered at all (auditor.results.reach)
    for target in run.targets:
        summary.add_target(target)
        samples.add_target(target)
        if junit is not None:
            junit.add_target(target, unreachable=bool(causes))
        if failing is not None:
            failing.add_target(target)
    ended = Conclusion(summary, samples, run.targets, complete)
    sections: list[Section] = []
    for wing in wings:
        found = await wing.finish(ended)
        if found is not None:
            sections.append(found)
    decision = judge(
        summary,
        samples,
        fail_on=config.fail_on,
        complete=complete,
        failed=failed,
        regressions=_regressions(sections),
        stalled=run.stalled,
        unreachable=outage_text(causes) if causes else None,
        known=next((s.last_known for s in sections if s.last_known is not None), None),
        clauses=tuple(clause for s in sections if (clause := s.clause) is not None),
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
        unreachable=bool(causes),
        sections=tuple(sections),
    )


async def _walk_or_fail(
    run: Run,
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
        tee = Tee(writer, *records) if records else writer
        return await run.walk(tee, stop), False
    except BaseException as exc:
        lost = write_failure_in(exc)
        if lost is not None or not isinstance(exc, Exception):
            await writer.discard()
            if csv is not None:
                await csv.discard()
            raise lost or exc from None
        log.exception("the audit failed")
        return False, True


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


async def _junit_cases(config: AuditConfig, folder: Path) -> JunitCases:
    """`--junit`'s cases, spooled beside the report (made in a thread: it creates a file)."""
    from auditor.report.junit import JunitCases  # noqa: PLC0415 - only with --junit

    def made() -> JunitCases:  # local sitemaps are named relative to the current folder
        only = config.junit_failures_only
        return JunitCases(folder, config.fail_on, failures_only=only, workspace=Path.cwd())

    return await asyncio.to_thread(made)


def _regressions(sections: Sequence[Section]) -> int | None:
    """What the sections say regressed (None: none of them compares with a baseline)."""
    counts = [section.regressions for section in sections if section.regressions is not None]
    return sum(counts) if counts else None


def _diff(sections: Sequence[Section]) -> Json | None:
    """The report's `diff` (with --baseline), as the library has always handed it back."""
    found = placed(sections, summary=False).get("diff")
    return found if isinstance(found, dict) else None

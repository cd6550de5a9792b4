"""What a wing is to the run: an optional feature, seen through four seams.

The run (auditor.flow) folds over the enabled wings, listed once in auditor.flow.registry, and
names none of them (tests/test_layering.py). A wing

- opens what it must read before anything is written (`Feature.open`): a file it cannot use is
  a usage error, and no report is left behind;
- watches the run's records as the walk begins (`Wing.watch`): the checks, the sink, which
  wanted URLs are requested and when;
- routes the URL stream and the walk's steps through its own parts (`Wing.route`);
- ends with a typed section of the report, which carries its views (`Wing.finish`,
  auditor.report.section).

See docs/explanation/design.md#wings.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from auditor.checks.stage import CheckWatcher, Plan
from auditor.clock import Clock
from auditor.config import AuditConfig
from auditor.http_stack import Openers
from auditor.models import CheckResult, TargetRecord, UrlRecord
from auditor.options.row import Option
from auditor.report.section import Section
from auditor.results.samples import Samples
from auditor.results.sink import Join, Marks, Observer, RecordWriter, SinkItem
from auditor.results.summary import Summary
from auditor.sitemap.plain_urls import Clean, Listed
from auditor.sitemap.read_services import Clusters, EmitSitemap, EmitUrls

if TYPE_CHECKING:  # the check path: loaded where URLs are checked
    import sqlite3

    from auditor.checks.engine import CheckEngine

T = TypeVar("T")
Step = Callable[[], Awaitable[None]]
# (record, outcome) pairs: a tuple each where it has nothing to say (auditor.checks.stage)
Pairs = list[tuple[UrlRecord | Listed, CheckResult | Clean]]
EmitPairs = Callable[[Pairs], Awaitable[None]]


async def nothing() -> None:
    """A step that does nothing: where no wing adds one."""


class KeptTables(Protocol):
    """A file kept between runs, open for this run, where a wing may keep tables of its own."""

    def run_on(self, work: Callable[[sqlite3.Connection], T], *, write: bool) -> T:
        """`work` on the file's connection, alone; with `write`, in one transaction (blocking)."""
        ...


@dataclass(slots=True)
class Shelf:
    """What a wing opened that the wings after it (the registry's order) may use.

    Wings name no other wing: what one shares is put here as a protocol of this module.
    """

    kept: KeptTables | None = None  # the history (--history), for a wing's own tables


@dataclass(frozen=True, slots=True)
class Opening:
    """What a wing may use as the run opens, before anything is written."""

    config: AuditConfig
    clock: Clock
    started_at: datetime
    report: Path  # the JSON report to be written: a wing's own files go beside it
    stack: AsyncExitStack  # closes once every output of the run is written
    stop: asyncio.Event | None = None  # set: the run is asked to stop (a long open may end)
    shelf: Shelf = field(default_factory=Shelf)


@dataclass(frozen=True, slots=True)
class WalkParts:
    """What a wing may use of the run's walk."""

    openers: Openers  # the run's, one gate for every request
    checker: CheckEngine[Any]  # the run's one URL checker, whatever role a URL plays
    listed: Callable[[int], bool]  # whether a sitemap lists the URL (by digest) so far
    sink: Callable[[SinkItem], Awaitable[None]]  # to the one sink (auditor.results.sink)
    stack: AsyncExitStack  # closes when the walk ends, whatever happened


class CheckPlan(Plan, Protocol):
    """A plan of the check stage (auditor.checks.stage.Plan) that sees every check come back."""

    def records_checked(
        self, emit: EmitUrls, *, watchers: Sequence[CheckWatcher] = ()
    ) -> EmitPairs:
        """The stage's emit for (record, result) pairs, through the plan, on to `emit`."""
        ...

    def keep_checked(self, pairs: Pairs) -> None:
        """Checks a stop kept from the stage's emit: kept all the same, never lost."""


@dataclass(frozen=True, slots=True)
class Watch:
    """What watches the run's records, folded over the wings before the stages are made."""

    watchers: tuple[CheckWatcher, ...] = ()  # shown every checked URL
    observers: tuple[Observer, ...] = ()  # fed by the sink, record by record
    writers: tuple[RecordWriter, ...] = ()  # ...the same, and the run's findings too
    marks: Marks | None = None  # marks known issues as the sink takes each record
    plan: CheckPlan | None = None  # which wanted URLs are requested, and when
    clusters: Clusters | None = None  # where the sitemap readers put hreflang clusters
    joins: tuple[Join, ...] = ()  # add to each URL's record at the sink, before `marks`


@dataclass(frozen=True, slots=True)
class Walked:
    """How the walk of the sitemaps ended, once every document was read."""

    capped: bool  # a bound of the tree left documents unread
    targets: Sequence[TargetRecord]


async def _walked(_walked: Walked, /) -> None:
    """No wing does anything once the sitemaps are read."""


class EndStep(Protocol):
    """A step once the walk is over: whether it finished (not stopped, no failure), its targets."""

    async def __call__(self, *, finished: bool, targets: Sequence[TargetRecord]) -> None:
        """Do it."""


async def _ended(*, finished: bool, targets: Sequence[TargetRecord]) -> None:
    """No wing does anything when the walk ends."""


@dataclass(frozen=True, slots=True)
class Lanes:
    """The walk's streams and steps, folded over the wings once the stages are made.

    A wing wraps a stream (its records pass its part first) or a step (its part before or after
    the others'); the steps run in this order: `before`, the walk, `walked`, the checks'
    end, `checked`, then `ended`.
    """

    urls: EmitUrls  # the sitemaps' URL records: to the check stage, or to the sink
    sitemaps: EmitSitemap  # the documents: to the sink
    watchers: tuple[CheckWatcher, ...]  # the run's, once folded: a wing reads them
    before: Step = nothing  # before the sitemaps are read
    walked: Callable[[Walked], Awaitable[None]] = _walked  # once every sitemap is read
    checked: Step = nothing  # once every URL is checked
    ended: EndStep = _ended  # the walk is over: whether it finished
    # Pages requested before the walk while that goes on (the progress bar); None: not now.
    busy: Callable[[], int | None] = field(default=lambda: None)


def after(first: Step, then: Step) -> Step:
    """`first`, then `then`."""

    async def both() -> None:
        await first()
        await then()

    return both


@dataclass(frozen=True, slots=True)
class Conclusion:
    """The run as its wings finish: its counts once the sink took every record."""

    summary: Summary
    samples: Samples
    targets: tuple[TargetRecord, ...]
    complete: bool  # the walk finished (not stopped, no failure)


class Wing(Protocol):
    """A wing opened for one run."""

    async def watch(self, parts: WalkParts, watch: Watch, /) -> Watch:
        """The run's watchers with this wing's added; its stores for the walk open now."""
        ...

    def route(self, parts: WalkParts, lanes: Lanes, /) -> Lanes:
        """The walk's streams and steps with this wing's parts woven in."""
        ...

    async def finish(self, ended: Conclusion, /) -> Section | None:
        """Its section of the report, once every record is counted (None: it has none)."""
        ...


class Feature(Protocol):
    """A wing as the registry lists it (auditor.flow.registry)."""

    name: str
    rows: tuple[Option, ...]  # its options: rows of the table (auditor.options.table)

    async def open(self, run: Opening, /) -> Wing | None:
        """The wing for this run, or None when the run does not ask for it.

        What it cannot use (a file, a baseline) is a usage error, raised before anything is
        written; what it opens closes with `run.stack`.
        """
        ...

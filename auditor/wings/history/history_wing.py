"""Big sites as a wing of the run: every URL's last verdict kept between runs, and a budget.

`--history`, `--budget`, `--budget-time`, `--max-age`, `--resume`. The history file is opened
and this run begun in it before anything is written (a file it cannot use is a usage error); the
check stage then asks the history's plan which wanted URLs to request and when
(auditor.wings.history.plan), every check is written back as it comes, and the section is
`summary.history`. See docs/how-to/big-sites.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from auditor.clock import Clock
from auditor.config import AuditConfig
from auditor.models import TargetRecord
from auditor.options.row import Group, Kind, Option
from auditor.report.section import Section
from auditor.results.reach import outage
from auditor.wings.feature import Conclusion, Lanes, Opening, WalkParts, Watch
from auditor.wings.history.history_section import HistorySection
from auditor.wings.history.last_known import HistoryCounts, LastKnown
from auditor.wings.history.plan import Budget, HistoryPlan
from auditor.wings.history.verdict_store import HistoryStore, RunStart


@dataclass(frozen=True, slots=True)
class HistorySettings:
    """The history's part of the run's configuration."""

    path: Path  # --history
    budget: Budget  # --budget, --budget-time, --max-age
    resume: bool  # --resume
    window: int  # URLs handed to the checks and not answered yet, at most

    @classmethod
    def of(cls, config: AuditConfig) -> HistorySettings | None:
        """The history a run asks for (None: no --history)."""
        if config.history is None:
            return None
        budget = Budget(config.budget, config.budget_time_s, config.max_age_days)
        # The checks never wait; a time budget stays close.
        return cls(config.history, budget, config.resume, window=2 * config.concurrency)


_G = Group.BIG_SITES
# Its options (docs/how-to/big-sites.md); each one's range is its field's.
ROWS: tuple[Option, ...] = (
    Option(
        "history",
        _G,
        "every URL's last verdict, kept between runs",
        Kind.PATH,
        metavar="PATH",
        checks_only=True,
    ),
    Option(
        "budget",
        _G,
        "requests a run at most; the rest carry their verdict",
        Kind.NUMBER,
        metavar="N",
    ),
    Option(
        "budget-time",
        _G,
        "stop requesting after this long (8h, 90m)",
        Kind.DURATION,
        metavar="DURATION",
        setting="budget_time_s",
    ),
    Option(
        "max-age",
        _G,
        "request every URL at least this often",
        Kind.NUMBER,
        metavar="DAYS",
        setting="max_age_days",
    ),
    Option("resume", _G, "continue the history's interrupted run", Kind.FLAG),
)


class HistoryFeature:
    """`--history`, as the registry lists it."""

    name = "history"
    rows = ROWS

    async def open(self, run: Opening) -> HistoryWing | None:
        """The history file open and locked until the run's outputs are written, this run begun.

        HistoryError (exit 2) when it cannot be used.
        """
        settings = HistorySettings.of(run.config)
        if settings is None:
            return None
        store = await asyncio.to_thread(HistoryStore.open, settings.path)
        run.stack.push_async_callback(asyncio.to_thread, store.close)
        run.shelf.kept = store  # a later wing's own tables kept between runs
        targets = "\n".join(target.input for target in run.config.targets)
        now_s = int(run.started_at.timestamp())
        start = await asyncio.to_thread(store.begin, targets, resume=settings.resume, now_s=now_s)
        return HistoryWing(
            store,
            start,
            settings,
            clock=run.clock,
            started_s=run.started_at.timestamp(),
            report=run.report,
        )


FEATURE = HistoryFeature()


class HistoryWing:
    """One run's history: its plan of requests, what it carried, the site as last known."""

    def __init__(
        self,
        store: HistoryStore,
        start: RunStart,
        settings: HistorySettings,
        *,
        clock: Clock,
        started_s: float,
        report: Path,
    ) -> None:
        """`started_s`: when the run began (ages are counted from it)."""
        self._store = store
        self._start = start
        self._settings = settings
        self._clock = clock
        self._report = report
        self._counts = HistoryCounts()
        self._known = LastKnown(started_s)
        self._plan: HistoryPlan | None = None
        self._outage = False  # no target answered at all (auditor.results.reach)

    async def watch(self, parts: WalkParts, watch: Watch) -> Watch:
        """The check stage's plan; the sink counts the site as last known.

        When the walk ends, whatever happened, what was checked is kept, and a run that did not
        complete can be resumed.
        """
        settings = self._settings
        plan = self._plan = await HistoryPlan.create(
            self._store,
            self._start,
            budget=settings.budget,
            clock=self._clock,
            counts=self._counts,
            folder=self._report.parent,
            report=parts.sink,
            window=settings.window,
        )
        parts.stack.push_async_callback(self._finish_plan, plan, parts.listed)
        return replace(watch, plan=plan, observers=(*watch.observers, self._known))

    def route(self, _parts: WalkParts, lanes: Lanes, /) -> Lanes:
        """The plan learns whether the walk finished (only a finished run is complete).

        What a stop kept from the sink goes to it then.
        """
        plan = self._plan
        assert plan is not None

        async def ended(*, finished: bool, targets: Sequence[TargetRecord]) -> None:
            await lanes.ended(finished=finished, targets=targets)
            self._outage = bool(outage(targets))
            await plan.ended(complete=finished)

        return replace(lanes, ended=ended)

    async def _finish_plan(self, plan: HistoryPlan, listed: Callable[[int], bool]) -> None:
        """What was checked kept, how the run ended, whatever happened (`--resume`).

        An outage lists nothing: no URL is forgotten for it.
        """
        await plan.finish(listed=_listed_all if self._outage else listed)

    async def finish(self, _ended: Conclusion, /) -> Section:
        """`summary.history`."""
        return HistorySection(self._counts, self._known)


def _listed_all(_digest: int) -> bool:
    return True

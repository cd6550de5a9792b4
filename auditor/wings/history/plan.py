"""The check stage's plan with `--history`: what to request, in which order, what to carry.

Every wanted URL's row is looked up (and its listing written) as its reader's batch arrives.
Without a budget each is requested at once, its last validators sent along. With `--budget`
or `--budget-time` they wait (auditor.wings.history.park) until every sitemap is read, then come
back in the budget's order (auditor.wings.history.order): requested while the budget lasts, the
rest carried forward with their last verdict and its age. With `--resume`, a URL the
interrupted run had requested is not requested again: its verdict is the run's own.

Each batch of checks is written as it arrives, while the next is checked
(auditor.wings.history.verdict_store), and counted as requested once written. A stop loses no
answered check: what the checks still held is kept (`keep_checked`), written before the history
closes, and reported.
"""

from __future__ import annotations

import asyncio
import functools
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from auditor.checks.stage import RESULT_BATCH, Ask, CheckWatcher, joined
from auditor.clock import Clock
from auditor.codes import Code
from auditor.models import CheckResult, RunFindings, UrlRecord, finding
from auditor.wings.history.history_rows import (
    STALE,
    Known,
    after_check,
    confirmed,
    lastmod_seconds,
    rebuilt,
)
from auditor.wings.history.last_known import HistoryCounts
from auditor.wings.history.order import DAY_S, Tier, sort_key, tier_of
from auditor.wings.history.park import Park
from auditor.wings.history.verdict_store import COMPLETE, STOPPED, HistoryStore, RunStart

Emit = Callable[[list[UrlRecord]], Awaitable[None]]
Report = Callable[[RunFindings], Awaitable[None]]
# A URL waiting for the budget's decision.
_Waiting = tuple[UrlRecord, str, Known, Tier]
Pairs = list[tuple[UrlRecord, CheckResult]]


@dataclass(frozen=True, slots=True)
class _Write:
    """A write of checks under way in a worker thread, and what it adds to the counts."""

    future: asyncio.Future[None]
    checks: int
    by_tier: Counter[Tier]


@dataclass(frozen=True, slots=True)
class Budget:
    """What a run may spend: requests, seconds; and how old a verdict may be carried."""

    requests: int | None = None  # --budget
    seconds: float | None = None  # --budget-time
    max_age_days: int | None = None  # --max-age

    @property
    def limited(self) -> bool:
        """Whether some URLs may go unrequested (they then wait for the budget's order)."""
        return self.requests is not None or self.seconds is not None


class HistoryPlan:
    """A Plan (auditor.checks.stage) that reads and writes the history."""

    def __init__(
        self,
        store: HistoryStore,
        start: RunStart,
        *,
        budget: Budget,
        clock: Clock,
        counts: HistoryCounts,
        park: Park[_Waiting] | None,
        report: Report,
        window: int = 256,
    ) -> None:
        """`park`: where URLs wait for the budget's order (None: no budget).

        `report`: where the run's own findings go (run.max_age_exceeded); `window`: URLs
        handed to the checks and not answered yet, at most (with a budget: the time budget is
        looked at when each is handed over).
        """
        self._store = store
        self._start = start
        self._budget = budget
        self._clock = clock
        self._counts = counts
        self._report = report
        self._park = park
        self._now_s = int(clock.now().timestamp())
        self._max_age_s = budget.max_age_days * DAY_S if budget.max_age_days else None
        self._left = None if budget.requests is None else budget.requests - start.requested_before
        self._deadline = None
        if budget.seconds is not None:
            self._deadline = clock.monotonic() + budget.seconds - start.elapsed_before_s
        self._pending: dict[int, tuple[Known, Tier]] = {}  # digests being checked: their rows
        self._window = max(1, window)
        self._answered = asyncio.Event()
        self._rows: list[tuple[Known, Tier]] = []  # checks answered, not written yet
        self._write: _Write | None = None  # the write under way
        self._writing = asyncio.Lock()  # one write at a time, in order
        self._recorded = start.requested_before  # checks written, the interrupted run's too
        self._asked = start.requested_before  # requests asked for, the interrupted run's too
        self._emit: Emit | None = None  # where checked records go (records_checked)
        self._held: list[UrlRecord] = []  # checked records a stop kept from `_emit`
        self.complete = False  # set once the run has read and checked everything
        # What judges checked URLs together (auditor.checks.stage.CheckWatcher): given with
        # the stage's emit, shown this run's checks (the interrupted run's too), never a
        # carried verdict (it may be stale: a false finding).
        self._watchers: Sequence[CheckWatcher] = ()
        counts.requested = start.requested_before
        counts.budget, counts.budget_time_s = budget.requests, budget.seconds
        counts.max_age_days = budget.max_age_days
        counts.resumed_from = float(start.started_s) if start.resumed else None

    @classmethod
    async def create(
        cls,
        store: HistoryStore,
        start: RunStart,
        *,
        budget: Budget,
        clock: Clock,
        counts: HistoryCounts,
        folder: Path,
        report: Report,
        window: int,
    ) -> HistoryPlan:
        """A plan; with a budget, its file of waiting URLs made in `folder` (the report's)."""
        park = await asyncio.to_thread(Park[_Waiting], folder) if budget.limited else None
        return cls(
            store,
            start,
            budget=budget,
            clock=clock,
            counts=counts,
            park=park,
            report=report,
            window=window,
        )

    async def sort(self, wanted: list[tuple[UrlRecord, str]]) -> tuple[list[Ask], list[UrlRecord]]:
        """Look the batch up; ask for it now (no budget), or keep it for the budget's order."""
        items = [(record.digest, lastmod_seconds(record.lastmod)) for record, _ in wanted]
        # Without a budget every URL is requested now: its row is written with its check.
        rows = await asyncio.to_thread(self._store.see, items, keep=self._park is not None)
        asks: list[Ask] = []
        done: list[UrlRecord] = []
        waiting: list[tuple[int, _Waiting]] = []
        for record, origin in wanted:
            known = rows[record.digest]
            resumed = self._resumed(record, known)
            if resumed is not None:
                done.append(resumed)
                continue
            tier = tier_of(known, now_s=self._now_s, max_age_s=self._max_age_s)
            if self._park is None:
                asks.append(self._ask(record, origin, known, tier))
            else:
                waiting.append((sort_key(tier, known), (record, origin, known, tier)))
        if waiting and self._park is not None:
            await asyncio.to_thread(self._park.add, waiting)
        return asks, done

    def _resumed(self, record: UrlRecord, known: Known) -> UrlRecord | None:
        """The record with the interrupted run's check of it, if that run had requested it.

        Not when its sitemap's lastmod moved since (the page changed after that check).
        """
        checked = known.checked
        if not self._start.resumed or checked is None or checked < self._start.started_s:
            return None
        if known.flags & STALE:
            return None
        result = rebuilt(record.loc, known)
        if result is None:
            return None
        self._counts.resumed += 1
        return joined([(record, result)], self._watchers)[0]

    def _ask(self, record: UrlRecord, origin: str, known: Known, tier: Tier) -> Ask:
        self._pending[record.digest] = (known, tier)
        self._asked += 1
        return Ask(record, origin, known.validators if known.requested else None)

    async def rest(self) -> AsyncIterator[Ask | UrlRecord]:
        """The waiting URLs in the budget's order: requested while it lasts, then carried."""
        park = self._park
        if park is None:
            return
        while chunk := await asyncio.to_thread(park.next_chunk):
            for record, origin, known, tier in chunk:
                while len(self._pending) >= self._window:
                    self._answered.clear()
                    await self._answered.wait()
                if self._spend():
                    yield self._ask(record, origin, known, tier)
                else:
                    yield self._carried(record, known, tier)
        counts = self._counts
        if counts.max_age_exceeded:
            found = finding(
                Code.RUN_MAX_AGE_EXCEEDED,
                urls=counts.max_age_exceeded,
                max_age_days=self._budget.max_age_days or 0,
                requested=self._asked,
            )
            await self._report(RunFindings((found,)))

    def _spend(self) -> bool:
        """Whether one more request fits the budget (and count it)."""
        if self._left is not None:
            if self._left <= 0:
                self._counts.stopped_by = self._counts.stopped_by or "budget"
                return False
            self._left -= 1
        if self._deadline is not None and self._clock.monotonic() >= self._deadline:
            self._counts.stopped_by = self._counts.stopped_by or "budget_time"
            return False
        return True

    def _carried(self, record: UrlRecord, known: Known, tier: Tier) -> UrlRecord:
        """The record with its last verdict, carried forward; as it is when it has none."""
        result = rebuilt(record.loc, known, carried=True) if known.requested else None
        if result is None:
            self._counts.never_checked += 1
            return record
        self._counts.carried += 1
        if tier is Tier.DUE:
            self._counts.max_age_exceeded += 1
        return record.with_check(result)

    def records_checked(
        self, emit: Emit, *, watchers: Sequence[CheckWatcher] = ()
    ) -> Callable[[Pairs], Awaitable[None]]:
        """The stage's emit for (record, result) pairs, through the history.

        Each check is judged against its row (a 304 confirms the last verdict), gathered to be
        written to the history, shown to `watchers`, and goes on to `emit` (which takes a batch
        whole or not at all); `keep_checked` takes the checks a stop leaves.
        """
        self._watchers = watchers
        self._emit = emit

        async def checked(pairs: Pairs) -> None:
            records = self._taken(pairs)
            try:
                # A batch is written while the next is checked.
                await self._flush()
                await emit(records)
            except asyncio.CancelledError:
                self._held += records  # the run stopped: to the sink once the checks are over
                raise

        return checked

    def keep_checked(self, pairs: Pairs) -> None:
        """Checks a stop kept from the stage's emit: written and reported all the same."""
        self._held += self._taken(pairs)

    def _taken(self, pairs: Pairs) -> list[UrlRecord]:
        """The checks judged, their rows gathered to be written (at once: nothing waits here)."""
        now = max(self._clock.now().timestamp(), self._start.started_s)
        judged = []
        self._answered.set()
        for record, answer in pairs:
            asked = self._pending.pop(record.digest, None)
            known = asked[0] if asked is not None else None
            result = self._judged(record, known, answer)
            result.checked_at = now
            if asked is not None:
                row = after_check(asked[0], record.loc, record.digest, result, at=int(now))
                self._rows.append((row, asked[1]))
            judged.append((record, result))
        return joined(judged, self._watchers)

    def _judged(self, record: UrlRecord, known: Known | None, result: CheckResult) -> CheckResult:
        if not result.not_modified or known is None:
            return result
        last = rebuilt(record.loc, known)
        if last is None:
            return result
        self._counts.not_modified += 1
        return confirmed(last, result)

    async def _flush(self) -> None:
        """Start writing the rows gathered, once the write under way is done."""
        async with self._writing:
            await self._written()
            # Taken once nothing is left to wait for: a stop meanwhile leaves them to `finish`.
            rows, self._rows = self._rows, []
            if not rows:
                return
            recorded = self._recorded + len(rows)
            write = functools.partial(
                self._store.record,
                [row for row, _ in rows],
                run_id=self._start.run_id,
                requested=recorded,
                now_s=int(self._clock.now().timestamp()),
            )
            self._recorded = recorded
            # An executor's future, not a task: the write goes on in its thread whatever happens
            # here, and is waited for (and counted) by the next flush, or by `finish`.
            future = asyncio.get_running_loop().run_in_executor(None, write)
            self._write = _Write(future, len(rows), Counter(tier for _, tier in rows))

    async def _written(self) -> None:
        """Wait for the write under way, if any, then count its checks as requested.

        Its HistoryWriteError is raised here. A stop while it waits leaves it under way, to be
        waited for again.
        """
        write = self._write
        if write is None:
            return
        try:
            await asyncio.shield(write.future)
        finally:
            if write.future.done():
                self._write = None
                if not write.future.cancelled() and write.future.exception() is None:
                    # What was requested is counted once it is recorded.
                    self._counts.requested += write.checks
                    self._counts.by_tier.update(write.by_tier)

    async def ended(self, *, complete: bool) -> None:
        """The checks are over (`complete`: every URL read and checked).

        The records a stop kept from the sink go to it now.
        """
        self.complete = complete
        held, self._held = self._held, []
        if self._emit is not None:
            for start in range(0, len(held), RESULT_BATCH):
                await self._emit(held[start : start + RESULT_BATCH])

    async def finish(self, *, listed: Callable[[int], bool]) -> None:
        """Write what is left, and how the run ended; the waiting URLs' file goes.

        After a complete run, the URLs no sitemap lists any more are forgotten.
        """
        try:
            await self._flush()
            async with self._writing:
                await self._written()
            now_s = int(self._clock.now().timestamp())
            state = COMPLETE if self.complete else STOPPED
            await asyncio.to_thread(self._store.end, self._start.run_id, state=state, now_s=now_s)
            if self.complete:
                await asyncio.to_thread(self._store.prune, listed, since_s=self._start.started_s)
        finally:
            if self._park is not None:
                await asyncio.to_thread(self._park.discard)

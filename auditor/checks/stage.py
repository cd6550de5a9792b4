"""The check stage: a bounded queue of URL records, N workers, results to the sink.

Readers submit records as they parse them, so checking starts with the first entry. Records
that are not to be requested (filtered, not sampled, not an http(s) URL) go straight on.

See docs/explanation/design.md#pipeline.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Generic, NamedTuple, Protocol, TypeVar

from auditor.checks.checker import Checker
from auditor.checks.selection import Reservoir, UrlFilter
from auditor.limits import MAX_FIELD_CHARS
from auditor.models import CheckResult, UrlRecord, Validators
from auditor.urls import authority_of, parse_http_url

# Origins kept by `scheme://authority` as written (most sitemaps list one or a few hosts).
MAX_ORIGINS = 1024
# Records waiting for a worker: enough to keep every worker busy while a reader parses the
# next chunk, few enough that memory does not depend on the URL count.
CHECK_QUEUE_RECORDS = 1024
# Results go to the sink in batches of this many (fewer when no record is waiting): one queue
# hand-over per URL costs as much as a tenth of a request.
RESULT_BATCH = 64

EmitUrls = Callable[[list[UrlRecord]], Awaitable[None]]
K = TypeVar("K")
# Where answered (key, result) pairs go: a batch handed on (it may wait for room), or kept at
# once (a stop: nothing may wait then).
Emit = Callable[[list[tuple[K, CheckResult]]], Awaitable[None]]
Keep = Callable[[list[tuple[K, CheckResult]]], None]
# One URL to check: (key, URL, origin, the validators of a conditional request).
Job = tuple[K, str, str, Validators | None]


class Checks(Protocol):
    """Where the stage's records are checked: in this process, or in checker processes."""

    async def put(
        self, record: UrlRecord, loc: str, origin: str, validators: Validators | None = None
    ) -> None:
        """Check `loc` (of `origin`) for `record`; waits while the backend is full.

        `validators`: the page's last ones, for a conditional request (--history).
        """

    async def close(self) -> None:
        """No more records: end once every record put is checked."""

    async def run(self) -> None:
        """Check records until closed and drained."""


class Ask(NamedTuple):
    """A URL a plan asks to be requested: its record, its origin, its last validators."""

    record: UrlRecord
    origin: str
    validators: Validators | None


class Plan(Protocol):
    """Which of the wanted URLs are requested, and when (auditor.wings.history: --history)."""

    async def sort(self, wanted: list[tuple[UrlRecord, str]]) -> tuple[list[Ask], list[UrlRecord]]:
        """Of a reader's wanted (record, origin) pairs: those to request now, and those done.

        The records done go on to the sink as they are; the plan keeps the rest for `rest()`.
        """

    def rest(self) -> AsyncIterator[Ask | UrlRecord]:
        """Once every record is submitted: what it kept, to request or done."""


class CheckStage:
    """Chooses the records to check and hands them to `checks`; the rest go straight on."""

    def __init__(
        self,
        checks: Checks,
        *,
        emit: EmitUrls,
        select: UrlFilter,
        sample: Reservoir[tuple[UrlRecord, str]] | None,
        plan: Plan | None = None,
    ) -> None:
        """`plan`: which wanted URLs to request and when (none: all of them, as they come)."""
        self._checks = checks
        self._emit = emit
        self._select = select
        self._sample = sample
        self._plan = plan
        self._origins: dict[str, str | None] = {}
        self.queued = 0  # records sent to be checked so far
        self.discovered = False  # every record has been submitted

    async def submit(self, batch: list[UrlRecord]) -> None:
        """Take a reader's batch: queue what is to be checked, pass the rest on to the sink."""
        unchecked: list[UrlRecord] = []
        planned: list[tuple[UrlRecord, str]] = []
        for record in batch:
            origin = self._origin_if_wanted(record)
            if origin is None:
                unchecked.append(record)
            elif self._plan is not None:
                planned.append((record, origin))
            elif self._sample is not None:
                left_out = self._sample.offer((record, origin))
                if left_out is not None:
                    unchecked.append(left_out[0])
            else:
                self.queued += 1
                await self._checks.put(record, record.loc, origin)
        if self._plan is not None and planned:
            asks, done = await self._plan.sort(planned)
            unchecked += done
            for ask in asks:
                await self._ask(ask)
        if unchecked:
            await self._emit(unchecked)

    async def _ask(self, ask: Ask) -> None:
        self.queued += 1
        await self._checks.put(ask.record, ask.record.loc, ask.origin, ask.validators)

    def _origin_if_wanted(self, record: UrlRecord) -> str | None:
        """The URL's origin when it is to be requested, else None."""
        loc = record.loc
        # Digest 0: the reader found no http(s) URL there. A value the parser cut is not the
        # URL the sitemap meant. Neither is ever requested.
        if not record.digest or len(loc) >= MAX_FIELD_CHARS:
            return None
        if not (self._select.everything or self._select.wants(loc)):
            return None
        authority = authority_of(loc)
        if authority in self._origins:
            return self._origins[authority]
        if len(self._origins) >= MAX_ORIGINS:
            self._origins.clear()
        parsed = parse_http_url(authority)
        origin = self._origins[authority] = parsed.origin if parsed is not None else None
        return origin

    async def finish(self) -> None:
        """No more records: check the sample, if any, then let the checks end."""
        if self._sample is not None:
            for record, origin in self._sample.take():
                self.queued += 1
                await self._checks.put(record, record.loc, origin)
        if self._plan is not None:
            await self._planned_rest(self._plan)
        self.discovered = True
        await self._checks.close()

    async def _planned_rest(self, plan: Plan) -> None:
        """What the plan kept: requested, or on to the sink in batches."""
        done: list[UrlRecord] = []
        async for item in plan.rest():
            if isinstance(item, UrlRecord):
                done.append(item)
                if len(done) >= RESULT_BATCH:
                    await self._emit(done)
                    done = []
            else:
                await self._ask(item)
        if done:
            await self._emit(done)

    async def run(self) -> None:
        """Check until `finish()` has been called and every record is checked."""
        await self._checks.run()


class CheckLoop(Generic[K]):
    """`workers` tasks in this process checking (key, URL, origin, validators) jobs, queued.

    The (key, result) pairs go on in small batches. A loop cancelled (the run stopped) drops the
    checks in flight and hands the answered ones it still holds to `keep`.
    """

    def __init__(
        self,
        checker: Checker,
        *,
        workers: int,
        emit: Emit[K],
        keep: Keep[K] | None = None,
    ) -> None:
        """`emit`: where answers go, a batch at a time; it takes each batch before it waits.

        `keep`: where the answers not handed to `emit` yet go when the loop is cancelled, at
        once (None: they are dropped).
        """
        self._checker = checker
        self._workers = workers
        self._emit = emit
        self._keep = keep
        self._queue: asyncio.Queue[Job[K] | None] = asyncio.Queue(CHECK_QUEUE_RECORDS)
        self._done: list[tuple[K, CheckResult]] = []
        self._waiting = 0  # jobs in the queue (not the end markers)

    async def put(
        self, key: K, loc: str, origin: str, validators: Validators | None = None
    ) -> None:
        """Queue one job; waits while the queue is full."""
        self._waiting += 1
        await self._queue.put((key, loc, origin, validators))

    async def close(self) -> None:
        """No more jobs: each worker ends once the queue is drained."""
        for _ in range(self._workers):
            await self._queue.put(None)

    async def run(self) -> None:
        """Run the workers until closed and drained."""
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(self._workers):
                    group.create_task(self._work())
        except BaseException:
            # Answered, whatever stopped the workers: never requested again for want of a batch.
            batch, self._done = self._done, []
            if batch and self._keep is not None:
                self._keep(batch)
            raise
        batch, self._done = self._done, []
        if batch:
            await self._emit(batch)

    async def _work(self) -> None:
        while (job := await self._queue.get()) is not None:
            self._waiting -= 1
            key, loc, origin, validators = job
            result = await self._checker.check(loc, origin=origin, validators=validators)
            self._done.append((key, result))
            if len(self._done) >= RESULT_BATCH or not self._waiting:
                batch, self._done = self._done, []
                await self._emit(batch)


class CheckWatcher(Protocol):
    """Something that judges checked URLs together, once all are checked."""

    def checked(self, record: UrlRecord, result: CheckResult) -> None:
        """One URL's check, as it is done."""


def records_checked(
    emit: EmitUrls, *, watchers: Sequence[CheckWatcher] = ()
) -> Callable[[list[tuple[UrlRecord, CheckResult]]], Awaitable[None]]:
    """An emit for (record, result) pairs: each record with its check, on to `emit`.

    Each pair is shown to `watchers` first (lastmod.behind_page, where alternates lead).
    """

    def checked(pairs: list[tuple[UrlRecord, CheckResult]]) -> Awaitable[None]:
        return emit(joined(pairs, watchers))

    return checked


def joined(
    pairs: Sequence[tuple[UrlRecord, CheckResult]], watchers: Sequence[CheckWatcher]
) -> list[UrlRecord]:
    """Each record with its check; each pair shown to `watchers` first."""
    for watcher in watchers:
        for record, result in pairs:
            watcher.checked(record, result)
    return [record.with_check(result) for record, result in pairs]

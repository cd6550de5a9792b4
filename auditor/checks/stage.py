"""The check stage: a bounded queue of URL records, N workers, results to the sink.

Readers submit records as they parse them, so checking starts with the first entry. Records
that are not to be requested (filtered, not sampled, not an http(s) URL) go straight on.

See docs/explanation/design.md#pipeline.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, Protocol, TypeVar

from auditor.checks.checker import Checker
from auditor.checks.page_head import lastmod_behind
from auditor.checks.selection import Reservoir, UrlFilter
from auditor.limits import MAX_FIELD_CHARS
from auditor.models import CheckResult, UrlRecord
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


class Checks(Protocol):
    """Where the stage's records are checked: in this process, or in checker processes."""

    async def put(self, record: UrlRecord, loc: str, origin: str) -> None:
        """Check `loc` (of `origin`) for `record`; waits while the backend is full."""

    async def close(self) -> None:
        """No more records: end once every record put is checked."""

    async def run(self) -> None:
        """Check records until closed and drained."""


class CheckStage:
    """Chooses the records to check and hands them to `checks`; the rest go straight on."""

    def __init__(
        self,
        checks: Checks,
        *,
        emit: EmitUrls,
        select: UrlFilter,
        sample: Reservoir[tuple[UrlRecord, str]] | None,
    ) -> None:
        self._checks = checks
        self._emit = emit
        self._select = select
        self._sample = sample
        self._origins: dict[str, str | None] = {}
        self.queued = 0  # records sent to be checked so far
        self.discovered = False  # every record has been submitted

    async def submit(self, batch: list[UrlRecord]) -> None:
        """Take a reader's batch: queue what is to be checked, pass the rest on to the sink."""
        unchecked: list[UrlRecord] = []
        for record in batch:
            origin = self._origin_if_wanted(record)
            if origin is None:
                unchecked.append(record)
            elif self._sample is not None:
                left_out = self._sample.offer((record, origin))
                if left_out is not None:
                    unchecked.append(left_out[0])
            else:
                self.queued += 1
                await self._checks.put(record, record.loc, origin)
        if unchecked:
            await self._emit(unchecked)

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
        self.discovered = True
        await self._checks.close()

    async def run(self) -> None:
        """Check until `finish()` has been called and every record is checked."""
        await self._checks.run()


class CheckLoop(Generic[K]):
    """`workers` tasks in this process checking (key, URL, origin) jobs from a bounded queue.

    The (key, result) pairs go on in small batches.
    """

    def __init__(
        self,
        checker: Checker,
        *,
        workers: int,
        emit: Callable[[list[tuple[K, CheckResult]]], Awaitable[None]],
    ) -> None:
        self._checker = checker
        self._workers = workers
        self._emit = emit
        self._queue: asyncio.Queue[tuple[K, str, str] | None] = asyncio.Queue(CHECK_QUEUE_RECORDS)
        self._done: list[tuple[K, CheckResult]] = []
        self._waiting = 0  # jobs in the queue (not the end markers)

    async def put(self, key: K, loc: str, origin: str) -> None:
        """Queue one job; waits while the queue is full."""
        self._waiting += 1
        await self._queue.put((key, loc, origin))

    async def close(self) -> None:
        """No more jobs: each worker ends once the queue is drained."""
        for _ in range(self._workers):
            await self._queue.put(None)

    async def run(self) -> None:
        """Run the workers until closed and drained."""
        async with asyncio.TaskGroup() as group:
            for _ in range(self._workers):
                group.create_task(self._work())
        if self._done:
            await self._emit(self._done)

    async def _work(self) -> None:
        while (job := await self._queue.get()) is not None:
            self._waiting -= 1
            key, loc, origin = job
            result = await self._checker.check(loc, origin=origin)
            self._done.append((key, result))
            if len(self._done) >= RESULT_BATCH or not self._waiting:
                batch, self._done = self._done, []
                await self._emit(batch)


def records_checked(
    emit: EmitUrls,
) -> Callable[[list[tuple[UrlRecord, CheckResult]]], Awaitable[None]]:
    """An emit for (record, result) pairs: each record with its check, on to `emit`."""

    def checked(pairs: list[tuple[UrlRecord, CheckResult]]) -> Awaitable[None]:
        return emit([joined(record, result) for record, result in pairs])

    return checked


def joined(record: UrlRecord, result: CheckResult) -> UrlRecord:
    """The record with its check, and what only both tell together: a lastmod behind the page."""
    if record.lastmod is not None and result.last_modified is not None:
        behind = lastmod_behind(record.lastmod, result.last_modified, url=record.loc)
        if behind is not None:
            result.findings += (behind,)
    return record.with_check(result)

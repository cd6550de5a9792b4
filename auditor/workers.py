"""The check stage (DESIGN §3): a bounded queue of URL records, N workers, results to the sink.

Readers submit records as they parse them, so checking starts with the first entry. Records
that are not to be requested (filtered, not sampled, not an http(s) URL) go straight on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from auditor.check import Checker
from auditor.models import UrlRecord
from auditor.parse import MAX_FIELD_CHARS
from auditor.selection import Reservoir, UrlFilter
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


class CheckStage:
    """`workers` tasks checking the records submitted; results go on in small batches."""

    def __init__(
        self,
        checker: Checker,
        *,
        workers: int,
        emit: EmitUrls,
        select: UrlFilter,
        sample: Reservoir[tuple[UrlRecord, str]] | None,
    ) -> None:
        self._checker = checker
        self._workers = workers
        self._emit = emit
        self._select = select
        self._sample = sample
        self._queue: asyncio.Queue[tuple[UrlRecord, str] | None] = asyncio.Queue(
            CHECK_QUEUE_RECORDS
        )
        self._done: list[UrlRecord] = []
        self._origins: dict[str, str | None] = {}
        self._waiting = 0  # records in the queue (not the end markers)
        self.queued = 0  # records sent to the workers so far
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
                self._waiting += 1
                await self._queue.put((record, origin))
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
        """No more records: check the sample, if any, then let the workers end."""
        if self._sample is not None:
            for item in self._sample.take():
                self.queued += 1
                self._waiting += 1
                await self._queue.put(item)
        self.discovered = True
        for _ in range(self._workers):
            await self._queue.put(None)

    async def run(self) -> None:
        """Run the workers until `finish()` has been called and the queue is drained."""
        async with asyncio.TaskGroup() as group:
            for _ in range(self._workers):
                group.create_task(self._work())
        if self._done:
            await self._emit(self._done)

    async def _work(self) -> None:
        while (item := await self._queue.get()) is not None:
            self._waiting -= 1
            record, origin = item
            result = await self._checker.check(record.loc, origin=origin)
            self._done.append(record.with_check(result))
            if len(self._done) >= RESULT_BATCH or not self._waiting:
                batch, self._done = self._done, []
                await self._emit(batch)

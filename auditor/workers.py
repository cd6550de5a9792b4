"""The check stage (DESIGN §3): a bounded queue of URL records, N workers, results to the sink.

Readers submit records as they parse them, so checking starts with the first entry. Records
that are not to be requested (filtered, not sampled, not an http(s) URL) go straight on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace

from auditor.check import Checker
from auditor.models import UrlRecord
from auditor.parse import MAX_FIELD_CHARS
from auditor.selection import Reservoir, UrlFilter
from auditor.urls import parse_http_url

# Records waiting for a worker: enough to keep every worker busy while a reader parses the
# next chunk, few enough that memory does not depend on the URL count.
CHECK_QUEUE_RECORDS = 1024

EmitUrls = Callable[[list[UrlRecord]], Awaitable[None]]


class CheckStage:
    """`workers` tasks checking the records submitted, each result emitted as it comes."""

    def __init__(
        self,
        checker: Checker,
        *,
        workers: int,
        emit: EmitUrls,
        select: UrlFilter,
        sample: Reservoir[UrlRecord] | None,
    ) -> None:
        self._checker = checker
        self._workers = workers
        self._emit = emit
        self._select = select
        self._sample = sample
        self._queue: asyncio.Queue[UrlRecord | None] = asyncio.Queue(CHECK_QUEUE_RECORDS)
        self.queued = 0  # records sent to the workers so far
        self.discovered = False  # every record has been submitted

    async def submit(self, batch: list[UrlRecord]) -> None:
        """Take a reader's batch: queue what is to be checked, pass the rest on to the sink."""
        unchecked: list[UrlRecord] = []
        for record in batch:
            if not self._wanted(record.loc):
                unchecked.append(record)
            elif self._sample is not None:
                left_out = self._sample.offer(record)
                if left_out is not None:
                    unchecked.append(left_out)
            else:
                self.queued += 1
                await self._queue.put(record)
        if unchecked:
            await self._emit(unchecked)

    def _wanted(self, loc: str) -> bool:
        # A value cut by the parser is not the URL the sitemap meant: never request it.
        if len(loc) >= MAX_FIELD_CHARS or parse_http_url(loc) is None:
            return False
        return self._select.everything or self._select.wants(loc)

    async def finish(self) -> None:
        """No more records: check the sample, if any, then let the workers end."""
        if self._sample is not None:
            for record in self._sample.take():
                self.queued += 1
                await self._queue.put(record)
        self.discovered = True
        for _ in range(self._workers):
            await self._queue.put(None)

    async def run(self) -> None:
        """Run the workers until `finish()` has been called and the queue is drained."""
        async with asyncio.TaskGroup() as group:
            for _ in range(self._workers):
                group.create_task(self._work())

    async def _work(self) -> None:
        while (record := await self._queue.get()) is not None:
            result = await self._checker.check(record.loc)
            await self._emit([replace(record, check=result)])

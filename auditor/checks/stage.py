"""The check stage: which listed URLs are requested, handed to the engine; outcomes to the sink.

Readers submit records as they parse them, so checking starts with the first entry. Records
that are not to be requested (filtered, not sampled, not an http(s) URL) go straight on.

See docs/explanation/design.md#pipeline.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import NamedTuple, Protocol, cast

from auditor.checks.check_run import Outcome
from auditor.checks.engine import RESULT_BATCH, CheckEngine
from auditor.checks.selection import Reservoir, UrlFilter
from auditor.limits import MAX_FIELD_CHARS
from auditor.models import CheckResult, UrlRecord, Validators
from auditor.sitemap.plain_urls import Checked, Clean, Listed
from auditor.urls import authority_of, parse_http_url

__all__ = ["RESULT_BATCH", "Ask", "CheckStage", "CheckWatcher", "Plan", "joined"]

# Origins kept by `scheme://authority` as written (most sitemaps list one or a few hosts).
MAX_ORIGINS = 1024
# A Checked made at tuple speed (a NamedTuple's own __new__ is a Python function).
_as_checked = cast(
    "Callable[[tuple[object, ...]], Checked]", functools.partial(tuple.__new__, Checked)
)

Item = UrlRecord | Listed  # what readers submit
Passed = UrlRecord | Listed | Checked  # what goes on to the sink
EmitUrls = Callable[[Sequence[Passed]], Awaitable[None]]
Pairs = list[tuple[Item, Outcome]]


class Ask(NamedTuple):
    """A URL a plan asks to be requested: its record, its origin, its last validators."""

    record: Item
    origin: str
    validators: Validators | None


class Plan(Protocol):
    """Which of the wanted URLs are requested, and when (auditor.wings.history: --history)."""

    async def sort(self, wanted: list[tuple[Item, str]]) -> tuple[list[Ask], list[Passed]]:
        """Of a reader's wanted (record, origin) pairs: those to request now, and those done.

        The records done go on to the sink as they are; the plan keeps the rest for `rest()`.
        """

    def rest(self) -> AsyncIterator[Ask | Passed]:
        """Once every record is submitted: what it kept, to request or done."""


class CheckStage:
    """Chooses the records to check and hands them to the engine; the rest go straight on."""

    def __init__(
        self,
        engine: CheckEngine[Item],
        *,
        emit: EmitUrls,
        select: UrlFilter,
        sample: Reservoir[tuple[Item, str]] | None,
        plan: Plan | None = None,
    ) -> None:
        """`plan`: which wanted URLs to request and when (none: all of them, as they come)."""
        self._engine = engine
        self._emit = emit
        self._select = select
        self._sample = sample
        self._plan = plan
        self._origins: dict[str, str | None] = {}
        self._last = ("\0", "")  # (`scheme://authority/`, its origin): most URLs share one
        self._everything = select.everything  # no --include nor --exclude
        self.queued = 0  # records sent to be checked so far
        self.discovered = False  # every record has been submitted

    async def submit(self, batch: Sequence[Item]) -> None:
        """Take a reader's batch: queue what is to be checked, pass the rest on to the sink."""
        unchecked: list[Passed] = []
        planned: list[tuple[Item, str]] = []
        engine, plan, sample = self._engine, self._plan, self._sample
        for record in batch:
            origin = self._origin_if_wanted(record)
            if origin is None:
                unchecked.append(record)
            elif plan is not None:
                planned.append((record, origin))
            elif sample is not None:
                left_out = sample.offer((record, origin))
                if left_out is not None:
                    unchecked.append(left_out[0])
            else:
                self.queued += 1
                if not engine.add(record, record.loc, origin):
                    await engine.put(record, record.loc, origin)
        if plan is not None and planned:
            asks, done = await plan.sort(planned)
            unchecked += done
            for ask in asks:
                await self._ask(ask)
        if unchecked:
            await self._emit(unchecked)

    async def _ask(self, ask: Ask) -> None:
        self.queued += 1
        await self._engine.put(ask.record, ask.record.loc, ask.origin, ask.validators)

    def _origin_if_wanted(self, record: Item) -> str | None:
        """The URL's origin when it is to be requested, else None."""
        loc = record.loc
        # Digest 0: the reader found no http(s) URL there. A value the parser cut is not the
        # URL the sitemap meant. Neither is ever requested.
        if not record.digest or len(loc) >= MAX_FIELD_CHARS:
            return None
        if not (self._everything or self._select.wants(loc)):
            return None
        prefix, origin = self._last
        if loc.startswith(prefix):
            return origin
        authority = authority_of(loc)
        origins = self._origins
        if authority in origins:
            return origins[authority]
        if len(origins) >= MAX_ORIGINS:
            origins.clear()
        parsed = parse_http_url(authority)
        found = origins[authority] = parsed.origin if parsed is not None else None
        if found is not None:
            self._last = (f"{authority}/", found)
        return found

    async def finish(self) -> None:
        """No more records: check the sample, if any, then let the checks end."""
        if self._sample is not None:
            for record, origin in self._sample.take():
                self.queued += 1
                await self._engine.put(record, record.loc, origin)
        if self._plan is not None:
            await self._planned_rest(self._plan)
        self.discovered = True
        await self._engine.close()

    async def _planned_rest(self, plan: Plan) -> None:
        """What the plan kept: requested, or on to the sink in batches."""
        done: list[Passed] = []
        async for item in plan.rest():
            if isinstance(item, Ask):
                await self._ask(item)
                continue
            done.append(item)
            if len(done) >= RESULT_BATCH:
                await self._emit(done)
                done = []
        if done:
            await self._emit(done)

    async def run(self) -> None:
        """Check until `finish()` has been called and every record is checked."""
        await self._engine.run()


class CheckWatcher(Protocol):
    """Something that judges checked URLs together, once all are checked."""

    def checked(self, record: UrlRecord | Listed, result: CheckResult) -> None:
        """One URL's check, as it is done."""

    def clean(self, item: Checked) -> None:
        """One listed URL whose check had nothing to say (no finding, indexable).

        Only a page that sent a Last-Modified is shown: no watcher reads any other clean one.
        """


def records_checked(
    emit: EmitUrls, *, watchers: Sequence[CheckWatcher] = ()
) -> Callable[[Pairs], Awaitable[None]]:
    """An emit for (record, outcome) pairs: each record with its check, on to `emit`.

    Each pair is shown to `watchers` first (lastmod.behind_page, where alternates lead).
    """

    def checked(pairs: Pairs) -> Awaitable[None]:
        return emit(joined(pairs, watchers))

    return checked


def joined(pairs: Sequence[tuple[Item, Outcome]], watchers: Sequence[CheckWatcher]) -> list[Passed]:
    """Each record with its check (a Checked pair of tuples where neither has anything to say).

    Each pair is shown to `watchers` first.
    """
    out: list[Passed] = []
    for record, outcome in pairs:
        if type(outcome) is Clean and type(record) is Listed:
            item = _as_checked((record, outcome))
            if outcome.last_modified is not None:
                for watcher in watchers:
                    watcher.clean(item)
            out.append(item)
            continue
        result = outcome.result(record.loc) if isinstance(outcome, Clean) else outcome
        for watcher in watchers:
            watcher.checked(record, result)
        out.append(record.with_check(result))
    return out

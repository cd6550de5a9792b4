"""The one sink: every record passes here once, to be counted, sampled and written.

See docs/explanation/design.md#pipeline.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from auditor.codes import Code
from auditor.models import Relisted, RunFindings, SitemapRecord, TargetRecord, UrlRecord
from auditor.results.dedup import UrlDedup
from auditor.results.samples import Samples
from auditor.results.summary import Summary
from auditor.sitemap.plain_urls import Checked, Listed

# Batches of URL records (at most reader.BATCH_RECORDS each) or sitemap records waiting for the
# sink: a slow disk slows the parsers, and memory stays flat.
SINK_QUEUE_ITEMS = 64
# An item of the sink's queue; None: no more records.


class RecordWriter(Protocol):
    """Where every record is written as it passes (the CSV files, JUnit, the baseline's join)."""

    def add_sitemap(self, record: SitemapRecord) -> None:
        """One document."""

    def add_url(self, record: UrlRecord) -> None:
        """One distinct URL."""

    def add_run_findings(self, item: RunFindings) -> None:
        """Findings about the run's URLs taken together (hreflang return links)."""

    async def flush_if_full(self) -> None:
        """Write what is buffered once there is enough of it."""


class ReportWriter(Protocol):
    """The sink's one writer: the JSON report (auditor.report.json_writer), or a Tee."""

    def add_sitemap(self, record: SitemapRecord) -> None:
        """One document."""

    def add_url(self, record: UrlRecord | Listed | Checked) -> None:
        """One distinct URL (a Listed or Checked one: a tuple with nothing to say)."""

    def add_run_findings(self, item: RunFindings) -> None:
        """Findings about the run's URLs taken together (hreflang return links)."""

    async def flush_if_full(self) -> None:
        """Write what is buffered once there is enough of it."""


class Tee:
    """Several record writers fed as one (the JSON report and the `--csv` files)."""

    def __init__(self, first: ReportWriter, *writers: RecordWriter) -> None:
        """Each record goes to every writer, in this order (`first`: the JSON report)."""
        self._first = first
        self._writers = writers

    def add_sitemap(self, record: SitemapRecord) -> None:
        """One document, to each writer."""
        self._first.add_sitemap(record)
        for writer in self._writers:
            writer.add_sitemap(record)

    def add_url(self, record: UrlRecord | Listed | Checked) -> None:
        """One distinct URL, to each writer (as its UrlRecord: the other outputs read one)."""
        whole = record if isinstance(record, UrlRecord) else record.record()
        self._first.add_url(whole)
        for writer in self._writers:
            writer.add_url(whole)

    def add_run_findings(self, item: RunFindings) -> None:
        """Run findings, to each writer."""
        self._first.add_run_findings(item)
        for writer in self._writers:
            writer.add_run_findings(item)

    async def flush_if_full(self) -> None:
        """Let each writer write what it has buffered."""
        await self._first.flush_if_full()
        for writer in self._writers:
            await writer.flush_if_full()


class Observer(Protocol):
    """Something else fed record by record: the JUnit cases, the baseline diff."""

    def add_sitemap(self, record: SitemapRecord) -> None:
        """One document."""

    def add_url(self, record: UrlRecord) -> None:
        """One distinct URL."""


class Marks(Protocol):
    """What marks known issues as the sink takes each record (--accept-file's rules)."""

    def mark_url(self, record: UrlRecord) -> None:
        """Mark the URL's findings (and its check's) in place."""

    def mark_sitemap(self, record: SitemapRecord) -> tuple[SitemapRecord, Counter[Code]]:
        """The document marked; the codes of its omitted findings that are accepted, counted."""
        ...

    def mark_run(self, item: RunFindings) -> tuple[RunFindings, Counter[Code]]:
        """The run's findings marked; the accepted ones of those omitted, counted."""
        ...

    def mark_target(self, record: TargetRecord) -> TargetRecord:
        """A target marked."""
        ...


class Join(Protocol):
    """What adds to each URL's record before it is counted (a field of its own, findings)."""

    def join_url(self, record: UrlRecord) -> None:
        """Add to `record` in place."""


@dataclass(frozen=True, slots=True)
class Late:
    """Run findings made at the sink's turn, once every record before this item has passed.

    So they count what every record before them said (what the joins saw).
    """

    make: Callable[[], Awaitable[Sequence[RunFindings]]]


Urls = Sequence[UrlRecord | Listed | Checked]
SinkItem = Urls | SitemapRecord | Relisted | RunFindings | Late | None
SinkQueue = asyncio.Queue[SinkItem]


def make_sink_queue() -> SinkQueue:
    """The bounded queue between the readers and the sink."""
    return asyncio.Queue(maxsize=SINK_QUEUE_ITEMS)


async def run_sink(
    queue: SinkQueue,
    *,
    writer: ReportWriter,
    summary: Summary,
    dedup: UrlDedup[Any],
    samples: Samples,
    observers: Sequence[Observer] = (),
    marks: Marks | None = None,
    joins: Sequence[Join] = (),
) -> None:
    """Consume records until None arrives; then count duplicate listings of checked URLs.

    A URL's record is joined first (`joins`), then its known issues marked (`marks`), so that
    every output says which they are. Relistings wait for the end: the URL's check may finish
    after its duplicate was read.
    """
    sink = _Sink(writer, summary, dedup, samples, observers, marks, joins)
    relisted: list[Relisted] = []
    while (item := await queue.get()) is not None:
        match item:
            case SitemapRecord():
                sink.add_sitemap(item)
            case Relisted():
                relisted.append(item)
            case RunFindings():
                sink.add_run_findings(item)
            case Late():
                for found in await item.make():
                    sink.add_run_findings(found)
            case _:
                sink.add_urls(item)
        await writer.flush_if_full()
    for listing in relisted:
        for digest in listing.digests:
            outcome = dedup.outcome(digest)
            if outcome is not None:
                summary.count_for(listing.sitemap, outcome)


@dataclass(frozen=True, slots=True)
class _Sink:
    """Where each kind of record goes, in the order every output relies on."""

    writer: ReportWriter
    summary: Summary
    dedup: UrlDedup[Any]
    samples: Samples
    observers: Sequence[Observer]
    marks: Marks | None
    joins: Sequence[Join]

    def add_sitemap(self, item: SitemapRecord) -> None:
        if self.marks is not None:
            item, omitted = self.marks.mark_sitemap(item)
            self.summary.accepted.update(omitted)
        self.summary.add_sitemap(item)
        self.samples.add_sitemap(item)
        self.writer.add_sitemap(item)
        for observer in self.observers:
            observer.add_sitemap(item)

    def add_run_findings(self, item: RunFindings) -> None:
        if self.marks is not None:
            item, omitted = self.marks.mark_run(item)
            self.summary.accepted.update(omitted)
        self.summary.add_findings(item.findings)
        self.summary.by_code.update(item.omitted)
        self.samples.add_findings(item.findings)
        self.writer.add_run_findings(item)

    def add_urls(self, records: Urls) -> None:
        marks, summary, writer, joins = self.marks, self.summary, self.writer, self.joins
        # Tuples with nothing to say are counted as they are; observers and joins read records
        # (docs/explanation/design.md#engine).
        plain = not self.observers and not joins
        joined: list[UrlRecord] = []  # the records as joined: the samples see a join's findings
        for item in records:
            if plain and isinstance(item, Checked):
                summary.add_checked(item)
                writer.add_url(item)
                self.dedup.set_clean(item.listed.digest)
                continue
            if plain and isinstance(item, Listed):
                summary.add_listed(item)
                writer.add_url(item)
                continue
            record = item if isinstance(item, UrlRecord) else item.record()
            for join in joins:
                join.join_url(record)
            joined.append(record)
            if marks is not None:
                marks.mark_url(record)
            summary.add_url(record)
            writer.add_url(record)
            for observer in self.observers:
                observer.add_url(record)
            check = record.fresh_check
            if check is not None and record.digest:
                self.dedup.set_outcome(
                    record.digest,
                    check.status_class,
                    failing=check.failing,
                    indexable=check.not_indexable is None,
                )
        # The HTML's samples: once per batch, not per record.
        self.samples.add_urls(records if plain else joined)

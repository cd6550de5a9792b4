"""The one sink: every record passes here once, to be counted, sampled and written.

See docs/explanation/design.md#pipeline.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from auditor.codes import Code
from auditor.models import Relisted, RunFindings, SitemapRecord, TargetRecord, UrlRecord
from auditor.results.dedup import UrlDedup
from auditor.results.samples import Samples
from auditor.results.summary import Summary

# Batches of URL records (at most reader.BATCH_RECORDS each) or sitemap records waiting for the
# sink: a slow disk slows the parsers, and memory stays flat.
SINK_QUEUE_ITEMS = 64
# An item of the sink's queue; None: no more records.


class RecordWriter(Protocol):
    """Where every record is written as it passes (auditor.report.json_writer)."""

    def add_sitemap(self, record: SitemapRecord) -> None:
        """One document."""

    def add_url(self, record: UrlRecord) -> None:
        """One distinct URL."""

    def add_run_findings(self, item: RunFindings) -> None:
        """Findings about the run's URLs taken together (hreflang return links)."""

    async def flush_if_full(self) -> None:
        """Write what is buffered once there is enough of it."""


class Tee:
    """Several record writers fed as one (the JSON report and the `--csv` files)."""

    def __init__(self, *writers: RecordWriter) -> None:
        """Each record goes to every writer, in this order."""
        self._writers = writers

    def add_sitemap(self, record: SitemapRecord) -> None:
        """One document, to each writer."""
        for writer in self._writers:
            writer.add_sitemap(record)

    def add_url(self, record: UrlRecord) -> None:
        """One distinct URL, to each writer."""
        for writer in self._writers:
            writer.add_url(record)

    def add_run_findings(self, item: RunFindings) -> None:
        """Run findings, to each writer."""
        for writer in self._writers:
            writer.add_run_findings(item)

    async def flush_if_full(self) -> None:
        """Let each writer write what it has buffered."""
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


SinkItem = list[UrlRecord] | SitemapRecord | Relisted | RunFindings | None
SinkQueue = asyncio.Queue[SinkItem]


def make_sink_queue() -> SinkQueue:
    """The bounded queue between the readers and the sink."""
    return asyncio.Queue(maxsize=SINK_QUEUE_ITEMS)


async def run_sink(
    queue: SinkQueue,
    *,
    writer: RecordWriter,
    summary: Summary,
    dedup: UrlDedup[Any],
    samples: Samples,
    observers: Sequence[Observer] = (),
    marks: Marks | None = None,
) -> None:
    """Consume records until None arrives; then count duplicate listings of checked URLs.

    Known issues are marked first (`marks`), so that every output says which they are.
    Relistings wait for the end: the URL's check may finish after its duplicate was read.
    """
    sink = _Sink(writer, summary, dedup, samples, observers, marks)
    relisted: list[Relisted] = []
    while (item := await queue.get()) is not None:
        match item:
            case SitemapRecord():
                sink.add_sitemap(item)
            case Relisted():
                relisted.append(item)
            case RunFindings():
                sink.add_run_findings(item)
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

    writer: RecordWriter
    summary: Summary
    dedup: UrlDedup[Any]
    samples: Samples
    observers: Sequence[Observer]
    marks: Marks | None

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

    def add_urls(self, records: list[UrlRecord]) -> None:
        marks, summary, writer, dedup = self.marks, self.summary, self.writer, self.dedup
        for record in records:
            if marks is not None:
                marks.mark_url(record)
            summary.add_url(record)
            writer.add_url(record)
            for observer in self.observers:
                observer.add_url(record)
            check = record.fresh_check
            if check is not None and record.digest:
                dedup.set_outcome(
                    record.digest,
                    check.status_class,
                    failing=check.failing,
                    indexable=check.not_indexable is None,
                )
        self.samples.add_urls(records)  # the HTML's samples: once per batch, not per record

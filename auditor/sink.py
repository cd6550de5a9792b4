"""The one sink: every record passes here once, to be counted and written (DESIGN §3)."""

from __future__ import annotations

import asyncio

from auditor.models import SitemapRecord, UrlRecord
from auditor.report.encode import sitemap_json, url_json
from auditor.report.json_writer import JsonReportWriter
from auditor.summary import Summary

# Batches of URL records (at most reader.BATCH_RECORDS each) or sitemap records waiting for the
# sink: a slow disk slows the parsers, and memory stays flat.
SINK_QUEUE_ITEMS = 64

SinkItem = list[UrlRecord] | SitemapRecord | None  # None: no more records
SinkQueue = asyncio.Queue[SinkItem]


def make_sink_queue() -> SinkQueue:
    """The bounded queue between the readers and the sink."""
    return asyncio.Queue(maxsize=SINK_QUEUE_ITEMS)


async def run_sink(queue: SinkQueue, *, writer: JsonReportWriter, summary: Summary) -> None:
    """Consume records until None arrives."""
    while (item := await queue.get()) is not None:
        if isinstance(item, SitemapRecord):
            summary.add_sitemap(item)
            writer.add_sitemap(sitemap_json(item))
        else:
            for record in item:
                summary.add_url(record)
                writer.add_url(url_json(record))
        await writer.flush_if_full()

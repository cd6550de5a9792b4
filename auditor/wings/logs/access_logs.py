"""A run's access logs: read before the sitemaps, joined at the sink, kept.

`open` reads every log (in a thread) into a compact tally, before the first sitemap is read:
each URL record then meets its hits at the sink (`join`, auditor.wings.logs.log_join). The
sink's late item (`findings`) makes the run's findings once every record is in, and `section`
the report's "Googlebot" section; `close` keeps the listed URLs' last hits in the history
(--history).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from auditor.config import AuditConfig
from auditor.models import RunFindings
from auditor.wings.feature import KeptTables
from auditor.wings.logs.crawler_ranges import CrawlerRanges, RangesError, read_ranges
from auditor.wings.logs.log_feed import FileStats, LogRun
from auditor.wings.logs.log_files import AccessLogError, StopReading, expand_sources, read_logs
from auditor.wings.logs.log_history import load_history, save_history
from auditor.wings.logs.log_join import LogJoin, UnlistedPages
from auditor.wings.logs.log_report import judgement, logs_section, run_findings
from auditor.wings.logs.log_section import LogsSection
from auditor.wings.logs.log_settings import LogsConfig, RangesFile, logs_config
from auditor.wings.logs.log_tally import DAY_S, Span, Window
from auditor.wings.logs.url_spool import UrlSpool

SHIPPED_RANGES = Path(__file__).with_name("crawler_ranges.json")


def load_ranges(files: Sequence[RangesFile]) -> CrawlerRanges:
    """The shipped ranges, each crawler's replaced by a `--crawler-ranges` file's (blocking)."""
    published = read_ranges(SHIPPED_RANGES.read_text("utf-8"), name=None)
    origins = {
        family: str(document.get("source", SHIPPED_RANGES.name))
        for family, document in published.items()
    }
    for given in files:
        flag = f"--crawler-ranges {given.path}"
        try:
            found = read_ranges(given.path.read_text("utf-8"), name=given.family)
        except OSError as exc:
            raise AccessLogError(f"{flag}: cannot read it ({exc.strerror})") from None
        except (RangesError, UnicodeDecodeError) as exc:
            raise AccessLogError(f"{flag}: not a crawler ranges file ({exc})") from None
        published.update(found)
        origins.update(dict.fromkeys(found, str(given.path)))
    return CrawlerRanges(published, origins)


@dataclass(slots=True)
class _Read:
    files: list[FileStats]
    spans: list[Span]
    interrupted: bool
    seconds: float = 0.0  # reading the logs took this long


class AccessLogs:
    """A run's access logs (`--access-log`), read and tallied, joined as records pass."""

    def __init__(
        self,
        run: LogRun,
        read: _Read,
        *,
        settings: LogsConfig,
        spool: UrlSpool,
        history: KeptTables | None,
    ) -> None:
        self._run = run
        self._read = read
        self._spool = spool
        self._history = history
        self.join = LogJoin(run, run.window, settings.error_rate, judged=False)
        self._judged = judgement(run, spans=self._spans())
        self.join.judged = self._judged.judged
        self._top: tuple[UnlistedPages, list[tuple[str, int]]] | None = None

    @classmethod
    async def open(
        cls,
        config: AuditConfig,
        *,
        started_at: datetime,
        history: KeptTables | None,
        stop: asyncio.Event | None = None,
    ) -> AccessLogs | None:
        """Read the run's logs; None without `--access-log`. AccessLogError for one that is none."""
        settings = logs_config(config)
        if settings is None:
            return None
        end = int(started_at.timestamp())
        window = Window(end - settings.days * DAY_S, end)
        ranges = await asyncio.to_thread(load_ranges, settings.ranges)
        run = LogRun(ranges, window, dict(settings.fields))
        spans = await asyncio.to_thread(load_history, history, run) if history is not None else []
        spool = await asyncio.to_thread(UrlSpool)
        began = time.monotonic()
        try:
            read = await _read_logs(settings, run, spool, stop)
        except BaseException:
            spool.close()
            raise
        read.spans, read.seconds = spans, time.monotonic() - began
        run.hits.freeze()
        return cls(run, read, settings=settings, spool=spool, history=history)

    def _spans(self) -> list[Span]:
        counts = self._run.counts
        own = (
            [(counts.first_s, counts.last_s)]
            if counts.first_s is not None and counts.last_s is not None
            else []
        )
        return [*self._read.spans, *own]

    async def findings(self) -> Sequence[RunFindings]:
        """The run's findings, once every record has been joined (the sink's late item)."""
        unlisted, top = await self._unlisted()
        found = run_findings(self._run, unlisted, top)
        return [RunFindings(found)] if found else []

    async def section(self) -> LogsSection:
        """The report's "Googlebot" section (`summary.logs`)."""
        unlisted, top = await self._unlisted()
        return logs_section(
            self._run,
            self.join,
            files=self._read.files,
            unlisted=unlisted,
            top=top,
            judged=self._judged,
            spans=self._spans(),
            read_s=self._read.seconds,
        )

    async def _unlisted(self) -> tuple[UnlistedPages, list[tuple[str, int]]]:
        """The pages crawled that no sitemap lists, the most crawled with their URLs: once."""
        if self._top is not None:
            return self._top
        unlisted = self.join.unlisted()
        keys = await asyncio.to_thread(self._spool.find, {digest for digest, _ in unlisted.top})
        top = sorted(
            (
                (self.join.url_of(keys[digest], self.join.host_ordinal(digest)), hits)
                for digest, hits in unlisted.top
                if digest in keys
            ),
            key=lambda pair: (-pair[1], pair[0]),
        )
        self._top = unlisted, top
        return self._top

    async def keep(self) -> None:
        """Keep the listed URLs' last hits (--history)."""
        if self._history is not None:
            counts = self._run.counts
            span = (
                (counts.first_s, counts.last_s)
                if counts.first_s is not None and counts.last_s is not None
                else None
            )
            await asyncio.to_thread(save_history, self._history, self._run, span=span)

    def discard(self) -> None:
        """Let the spool go (whatever ended the run)."""
        self._spool.close()


async def _read_logs(
    settings: LogsConfig, run: LogRun, spool: UrlSpool, stop: asyncio.Event | None
) -> _Read:
    """Every log read into `run`, in a thread; a stop of the run stops it between two blocks."""
    halt = threading.Event()
    watcher = asyncio.create_task(_relay(stop, halt)) if stop is not None else None

    def read() -> _Read:
        sources = expand_sources(settings.sources)
        files: list[FileStats] = []
        try:
            read_logs(
                sources,
                run,
                given=settings.format,
                stop=halt,
                spool=spool.add,
                stats=files,
                helpers=settings.helpers,
            )
        except StopReading:
            return _Read(files, [], interrupted=True)
        return _Read(files, [], interrupted=False)

    try:
        return await asyncio.to_thread(read)
    except asyncio.CancelledError:
        halt.set()
        raise
    finally:
        if watcher is not None:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher


async def _relay(stop: asyncio.Event, halt: threading.Event) -> None:
    await stop.wait()
    halt.set()

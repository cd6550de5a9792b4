"""Fixtures of the access logs' tests: a run's tally with the tests' clock."""

from __future__ import annotations

from datetime import timedelta

import pytest

from auditor.wings.logs.access_logs import load_ranges
from auditor.wings.logs.crawler_ranges import CrawlerRanges
from auditor.wings.logs.log_feed import FileStats, LogFeed, LogRun
from auditor.wings.logs.log_formats import LogFormat
from auditor.wings.logs.log_tally import DAY_S, Window
from tests.helpers import NOW

START = NOW - timedelta(days=30)  # the window of --log-days 30 at the tests' clock


@pytest.fixture(scope="session")
def ranges() -> CrawlerRanges:
    return load_ranges(())


def new_run(ranges: CrawlerRanges, *, days: int = 30) -> LogRun:
    end = int(NOW.timestamp())
    return LogRun(ranges, Window(end - days * DAY_S, end))


def fed(ranges: CrawlerRanges, data: bytes, fmt: LogFormat, *, pieces: int = 1) -> LogRun:
    """A run fed `data` in `pieces` about equal parts (1: whole)."""
    run = new_run(ranges)
    feed = LogFeed(run, FileStats("test.log", fmt))
    step = max(1, -(-len(data) // pieces))
    for at in range(0, len(data), step):
        feed.feed(data[at : at + step])
    feed.close()
    return run

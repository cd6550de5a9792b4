"""Where a run is, a few times a second, for a progress display (the command's bar).

See docs/explanation/design.md#pipeline.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from auditor.checks.stage import CheckStage
from auditor.clock import Clock
from auditor.codes import Severity
from auditor.results.summary import Summary

PROGRESS_INTERVAL_S = 0.25


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a run is, for a progress display."""

    sitemaps: int  # documents read
    found: int  # distinct URLs found so far
    checked: int
    to_check: int | None  # known once every sitemap is read (None: still discovering)
    errors: int
    elapsed_s: float
    crawled: int | None = None  # pages the crawl requested while it runs (--crawl); else None


OnProgress = Callable[[Progress], None]


async def tick(
    report: OnProgress,
    summary: Summary,
    *,
    found: Callable[[], int],
    stage: CheckStage | None,
    busy: Callable[[], int | None],
    clock: Clock,
) -> None:
    """Report where the run is every PROGRESS_INTERVAL_S, until cancelled.

    `found`: distinct URLs so far; `busy`: pages requested before the walk, while that goes on.
    """
    started = clock.monotonic()
    while True:
        to_check: int | None = 0  # --no-check: nothing to request
        if stage is not None:
            to_check = stage.queued if stage.discovered else None
        report(
            Progress(
                sitemaps=summary.sitemaps,
                found=found(),
                checked=summary.checked,
                to_check=to_check,
                errors=summary.by_severity()[Severity.ERROR],
                elapsed_s=clock.monotonic() - started,
                crawled=busy(),
            )
        )
        await asyncio.sleep(PROGRESS_INTERVAL_S)

"""The live progress bar on stderr (rich), fed by the pipeline's Progress records.

Only the CLI shows it, and only when stderr is a terminal.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
from rich.progress import Progress as RichProgress

from auditor.flow.ticker import Progress


class ProgressBar:
    """URLs checked of those found, the rate, errors so far; the ETA once discovery is done."""

    def __init__(self, console: Console | None = None) -> None:
        self._bar = RichProgress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]:>9} URLs/s  {task.fields[errors]} errors"),
            TimeRemainingColumn(),
            console=console or Console(stderr=True),
            transient=True,  # the summary follows; the bar leaves no trace
        )
        self._task = self._bar.add_task("discovering", total=None, rate="-", errors=0)

    def __enter__(self) -> Self:
        self._bar.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._bar.stop()

    def update(self, progress: Progress) -> None:
        """Show a new state of the run."""
        discovering = progress.to_check is None
        what = "discovering" if discovering else "checking"
        description = f"{what}: {progress.sitemaps} sitemaps, {progress.found} URLs found"
        if progress.crawled is not None:  # --crawl reads the site before its sitemaps
            description = f"crawling: {progress.crawled:,} pages requested"
        rate = progress.checked / progress.elapsed_s if progress.elapsed_s > 0 else 0.0
        self._bar.update(
            self._task,
            description=description,
            completed=progress.checked,
            total=None if discovering else max(progress.to_check or 0, progress.checked),
            rate=f"{rate:,.0f}",
            errors=progress.errors,
        )

"""What the library hands back: a report read as a stream, and a run with its report.

Records are read from the JSON report one at a time (auditor.report.reader), never the whole
report in memory. Reading is blocking: in async code iterate with `aiter_urls()` and
`aiter_sitemaps()`, which read in a thread.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from auditor.api.dataframes import FindingRow, changes_frame, findings_frame, urls_frame
from auditor.config import FailOn
from auditor.errors import ExitCode
from auditor.flow.audit import AuditResult
from auditor.models import Finding, SitemapRecord, TargetRecord
from auditor.report.csv_writer import FINDINGS_CSV, URLS_CSV
from auditor.report.decode import ReportedUrl, ReportSummary, summary_of
from auditor.report.reader import ReportHead, ReportReader
from auditor.results.verdict import Decision, Verdict
from auditor.wings.baseline.changes import baseline_of, changes, compared_in

if TYPE_CHECKING:
    import pandas as pd

T = TypeVar("T")
ASYNC_BATCH = 1_000  # records read per thread hop by the async iterators


class Report:
    """A JSON report on disk (`read_report`): its counts, its decision, its records."""

    def __init__(self, path: Path) -> None:
        """Nothing is read yet: `read_report` checks the head at once."""
        self.json_path = path
        self._reader = ReportReader(path)
        self._head: ReportHead | None = None
        self._summary: ReportSummary | None = None
        self._decision: Decision | None = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.json_path}>"

    @property
    def head(self) -> ReportHead:
        """What the report says before its records (read once)."""
        if self._head is None:
            self._head = self._reader.head()
        return self._head

    @property
    def complete(self) -> bool:
        """False when the run was interrupted or failed before its end."""
        return self.head.complete

    @property
    def config(self) -> Mapping[str, Any]:
        """The run's options as the report lists them (header values redacted)."""
        return self.head.config

    @property
    def targets(self) -> tuple[TargetRecord, ...]:
        """What was asked for, and what discovery saw."""
        return self.head.targets

    @property
    def summary(self) -> ReportSummary:
        """The run's counts (read from the end of the report once)."""
        if self._summary is None:
            self._summary = self._reader.summary()
        return self._summary

    @property
    def decision(self) -> Decision:
        """The run's exit code and verdict (decided again from a report: one pass over it)."""
        if self._decision is None:
            self._decision = self._reader.decision(head=self.head, summary=self.summary)
        return self._decision

    @property
    def verdict(self) -> Verdict:
        """`verdict.line` is the terminal's and the HTML headline's: `FAIL: 3 errors ...`."""
        return self.decision.verdict

    @property
    def exit_code(self) -> ExitCode:
        """0 passed, 1 findings or regressions, 3 did not finish or reached no target."""
        return self.decision.exit_code

    def urls(self) -> Iterator[ReportedUrl]:
        """Every distinct URL of the run, streamed from the report."""
        return self._reader.urls()

    def sitemaps(self) -> Iterator[SitemapRecord]:
        """Every document of the run (robots.txt included), streamed from the report."""
        return self._reader.sitemaps()

    def findings(self) -> Iterator[Finding]:
        """Every finding the report keeps: targets', documents', URLs', the run's (hreflang)."""
        for target in self.targets:
            yield from target.findings
        for record in self.sitemaps():
            yield from record.findings
        for url in self.urls():
            yield from url.findings
        yield from self._reader.run_findings()

    def aiter_urls(self) -> AsyncIterator[ReportedUrl]:
        """`urls()` for async code: read in a thread, a batch at a time."""
        return _in_thread(self._reader.urls)

    def aiter_sitemaps(self) -> AsyncIterator[SitemapRecord]:
        """`sitemaps()` for async code: read in a thread, a batch at a time."""
        return _in_thread(self._reader.sitemaps)

    def urls_frame(self) -> pd.DataFrame:
        """The URLs as a pandas DataFrame (`pip install 'sitemap-auditor[pandas]'`)."""
        return urls_frame(self.urls())

    def findings_frame(self) -> pd.DataFrame:
        """Every finding the report keeps, one row each, with its severity and what it is about.

        `about` is `target`, `sitemap`, `url` or `run` (hreflang return links); `line` is the
        URL's line in its sitemap, or the entry's for a document's finding about an entry;
        `sitemap` the document's, or the sitemap that lists the URL first.
        """
        return findings_frame(self._finding_rows())

    def _finding_rows(self) -> Iterator[FindingRow]:
        for target in self.targets:
            yield from ((item, "target", None, None) for item in target.findings)
        for record in self.sitemaps():
            for item in record.findings:
                line = item.detail.get("line") if item.detail else None
                yield item, "sitemap", line if isinstance(line, int) else None, record.url
        for url in self.urls():
            where = url.sitemap or url.alternate_of or None
            yield from ((item, "url", url.line, where) for item in url.findings)
        yield from ((item, "run", None, None) for item in self._reader.run_findings())

    def changes_frame(
        self, baseline: str | os.PathLike[str] | None = None, *, fail_on_new: str | None = None
    ) -> pd.DataFrame:
        """Every URL added, removed or changed since the baseline, one row each.

        Without arguments, the baseline this report was compared with and its `--fail-on-new`
        (its `diff`), and its known issues as it marked them: `regression` says what the report
        says. `baseline`, `fail_on_new`: compare with another report, or at another level.
        """
        compared = compared_in(self.json_path)
        given = Path(baseline) if baseline is not None else None
        path = given or baseline_of(self.json_path, compared.baseline)
        level = FailOn(fail_on_new or compared.fail_on_new or FailOn.ERROR)
        return changes_frame(changes(path, self.json_path, fail_on_new=level))


class AuditRun(Report):
    """One audit's outcome (`run`, `audit_site`): counts and decision from the run itself."""

    def __init__(self, result: AuditResult, *, csv: Path | None = None) -> None:
        """`csv`: the run's --csv folder, if any."""
        super().__init__(result.json_path)
        self.result = result
        self.html_path = result.html_path
        self.csv_paths = (csv / URLS_CSV, csv / FINDINGS_CSV) if csv is not None else None
        self.duration_s = result.duration_s
        self._summary = summary_of(result.summary.to_json(duration_s=result.duration_s))
        self._decision = result.decision

    @property
    def complete(self) -> bool:
        """False when the run was interrupted or failed before its end."""
        return self.result.complete


async def _in_thread(factory: Callable[[], Generator[T, None, None]]) -> AsyncIterator[T]:
    """The records of a blocking generator, read in a worker thread a batch at a time."""
    records = await asyncio.to_thread(factory)
    try:
        while batch := await asyncio.to_thread(_batch, records):
            for record in batch:
                yield record
    finally:
        await asyncio.to_thread(records.close)  # closes the report file


def _batch(records: Iterator[T]) -> list[T]:
    return list(islice(records, ASYNC_BATCH))

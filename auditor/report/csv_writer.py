"""`--csv DIR`: urls.csv and findings.csv, streamed as records pass and published atomically.

RFC 4180 (the csv module's excel dialect: CRLF, fields quoted when they hold a comma, a quote or
a line break, quotes doubled), UTF-8 without a BOM, a header row: Excel, LibreOffice and pandas
open them as they are. Rows are buffered and written in large pieces to hidden files beside the
final names, then synced and renamed into place at the end of the run, like the JSON report.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import aiofiles
import aiofiles.os
from aiofiles.threadpool.binary import AsyncBufferedIOBase

from auditor.errors import ReportError, ReportWriteError
from auditor.files import create_new, hidden_stem
from auditor.models import Finding, RunFindings, SitemapRecord, TargetRecord, UrlRecord
from auditor.report.decode import codes_of, worst_of
from auditor.report.encode import dumps, utc_text

URLS_CSV = "urls.csv"
FINDINGS_CSV = "findings.csv"
URL_COLUMNS = (
    "loc",
    "status",
    "final_url",
    "redirect_hops",
    "elapsed_ms",
    "sitemap",
    "codes",
    "worst_severity",
    "lastmod",
    "final_status",
    "indexability",
    "indexability_reason",
    "checked_at",
    "carried",
    "crawl_depth",
    "linked_from",
    "page_links",
    "googlebot_hits",
    "googlebot_last",
    "googlebot_last_status",
    "crawlers",
)
FINDING_COLUMNS = ("code", "severity", "url", "sitemap", "line", "message", "detail")
FLUSH_CHARS = 1 << 20  # buffer rows and write in large pieces: each write is a thread hop
# A cell starting with one of these is a formula to a spreadsheet (CSV injection, OWASP): a
# hostile sitemap's <loc> could run one. Such a value is no http(s) URL; it gets a leading "'".
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

Cell = str | int | None


class _CsvFile:
    """One CSV file: rows buffered as text, written to a hidden file, renamed at the end."""

    def __init__(self, path: Path, header: Sequence[str]) -> None:
        self.path = path
        self._temporary: Path | None = None  # a new hidden file, made when it opens
        self._text = io.StringIO()
        self._rows = csv.writer(self._text)  # the excel dialect: RFC 4180's CRLF and quoting
        self._rows.writerow(header)
        self._file: AsyncBufferedIOBase | None = None

    async def open(self) -> None:
        # Never a file planted beside it in a shared folder (auditor.files.create_new).
        handle, self._temporary = await asyncio.to_thread(
            create_new, hidden_stem(self.path), ".part"
        )
        self._file = await aiofiles.open(handle, "wb")

    def add(self, row: Iterable[Cell]) -> None:
        self._rows.writerow(row)

    @property
    def full(self) -> bool:
        return self._text.tell() >= FLUSH_CHARS

    async def flush(self) -> None:
        assert self._file is not None
        # "replace": a lone surrogate (from an undecodable file name) must not make it invalid UTF-8
        data = self._text.getvalue().encode("utf-8", "replace")
        self._text.seek(0)
        self._text.truncate()
        try:
            await self._file.write(data)
        except OSError as exc:
            raise ReportWriteError(f"cannot write {self.path}: {exc}") from exc

    async def commit(self) -> None:
        await self.flush()
        assert self._file is not None
        try:
            await self._file.flush()
            await asyncio.to_thread(os.fsync, self._file.fileno())
            file, self._file = self._file, None
            await file.close()
            assert self._temporary is not None
            await aiofiles.os.replace(self._temporary, self.path)
            self._temporary = None
        except OSError as exc:
            raise ReportWriteError(f"cannot write {self.path}: {exc}") from exc

    async def discard(self) -> None:
        if self._file is not None:
            file, self._file = self._file, None
            with contextlib.suppress(OSError):
                await file.close()
        if self._temporary is not None:
            with contextlib.suppress(OSError):
                await aiofiles.os.remove(self._temporary)


class CsvWriter:
    """Streams the URL table and the findings table of a run into a folder (`--csv DIR`)."""

    def __init__(self, folder: Path) -> None:
        """`folder` is created when the writer opens; its two files are replaced at commit."""
        self.folder = folder
        self._urls = _CsvFile(folder / URLS_CSV, URL_COLUMNS)
        self._findings = _CsvFile(folder / FINDINGS_CSV, FINDING_COLUMNS)

    @property
    def paths(self) -> tuple[Path, Path]:
        """urls.csv and findings.csv."""
        return self._urls.path, self._findings.path

    async def open(self) -> None:
        """Create the folder and the hidden files; ReportError when it is not writable."""
        try:
            await aiofiles.os.makedirs(self.folder, exist_ok=True)
            await self._urls.open()
            await self._findings.open()
        except OSError as exc:
            await self.discard()
            raise ReportError(f"cannot write the CSV files to {self.folder}: {exc}") from exc

    def add_sitemap(self, record: SitemapRecord) -> None:
        """A document's own findings (those its report entry keeps)."""
        for item in record.findings:
            line = item.detail.get("line") if item.detail else None
            self._add_finding(item, url=item.url, sitemap=item.sitemap or record.url, line=line)

    def add_url(self, record: UrlRecord) -> None:
        """One row of urls.csv, and one row of findings.csv per finding of the URL."""
        check = record.check
        findings = record.findings + check.findings if check is not None else record.findings
        sitemap = record.sitemaps[0] if record.sitemaps else None
        worst = worst_of(findings) if findings else None
        self._urls.add(
            (
                _safe(record.loc),
                check.status if check is not None else None,
                _safe(check.final_url) if check is not None else None,
                len(check.redirects) if check is not None else None,
                check.elapsed_ms if check is not None else None,
                _safe(sitemap),
                " ".join(codes_of(findings)) if findings else None,
                worst.value if worst is not None else None,
                _safe(record.lastmod),
                check.final_status if check is not None else None,
                record.indexability.value,
                check.not_indexable.value if check and check.not_indexable else None,
                utc_text(check.checked_at) if check and check.checked_at is not None else None,
                "true" if check is not None and check.carried else None,
                *_crawl_cells(record),
                *_log_cells(record),
            )
        )
        for item in findings:
            self._add_finding(
                item, url=record.loc, sitemap=item.sitemap or sitemap, line=record.line
            )

    def add_run_findings(self, item: RunFindings) -> None:
        """Findings about the run's URLs taken together, the kept ones (all are counted)."""
        for found in item.findings:
            self._add_finding(found, url=found.url, sitemap=found.sitemap, line=None)

    def add_targets(self, records: Iterable[TargetRecord]) -> None:
        """What discovery found wrong with each target (known once the run ends)."""
        for target in records:
            for item in target.findings:
                self._add_finding(item, url=item.url or target.url, sitemap=item.sitemap, line=None)

    async def flush_if_full(self) -> None:
        """Write buffers that reached FLUSH_CHARS."""
        for table in (self._urls, self._findings):
            if table.full:
                await table.flush()

    async def commit(self) -> None:
        """Write what is left, sync, rename both files into place (ReportWriteError on failure)."""
        try:
            await self._urls.commit()
            await self._findings.commit()
        finally:
            await self.discard()

    async def discard(self) -> None:
        """Leave no hidden file behind (the published files stay)."""
        await self._urls.discard()
        await self._findings.discard()

    def _add_finding(
        self, item: Finding, *, url: str | None, sitemap: str | None, line: object
    ) -> None:
        self._findings.add(
            (
                item.code.value,
                item.severity.value,
                _safe(url),
                _safe(sitemap),
                line if isinstance(line, int) and not isinstance(line, bool) else None,
                _safe(item.message),
                dumps(dict(item.detail)).decode() if item.detail else None,
            )
        )


def _crawl_cells(record: UrlRecord) -> tuple[Cell, Cell, Cell]:
    """crawl_depth, linked_from, page_links: what the crawl (--crawl) found of the URL."""
    crawl = record.crawl
    if crawl is None:
        return None, None, None
    return crawl.depth, _safe(crawl.linked_from), crawl.links


def _log_cells(record: UrlRecord) -> tuple[Cell, Cell, Cell, Cell]:
    """googlebot_hits, googlebot_last, googlebot_last_status, crawlers (--access-log)."""
    facts = record.crawl_log
    if facts is None:
        return None, None, None, None
    last = utc_text(facts.last) if facts.last is not None else None
    return facts.hits, last, facts.last_status, " ".join(facts.bots) or None


def _safe(text: str | None) -> str | None:
    """The text, with a leading "'" when a spreadsheet would read it as a formula."""
    if text and text.startswith(_FORMULA_STARTS):
        return "'" + text
    return text

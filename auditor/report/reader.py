"""A JSON report read back as a stream (ijson): its head, records, summary and decision.

Never the whole document in memory: each pass yields one record at a time, so a 1M-URL report
is read in flat memory. Blocking file reads: call it from a thread inside an event loop.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import ijson
from ijson.common import ObjectBuilder

from auditor.codes import Severity
from auditor.config import FailOn
from auditor.errors import ReportReadError
from auditor.models import Finding, SitemapRecord, TargetRecord
from auditor.report.decode import (
    Obj,
    ReportedUrl,
    ReportSummary,
    finding_of,
    sitemap_of,
    summary_of,
    target_of,
    url_of,
)
from auditor.report.encode import SCHEMA_VERSION
from auditor.results.verdict import Decision, RunCounts, decide

_HEAD_KEYS = ("schema_version", "tool", "generated_at", "complete", "config", "targets")
_ERROR = Severity.ERROR.value


@dataclass(frozen=True, slots=True)
class ReportHead:
    """What a report says before its records: when, by which version, with what options."""

    generated_at: str
    complete: bool
    tool_version: str
    config: Obj  # the run's options, as the report lists them (header values redacted)
    targets: tuple[TargetRecord, ...]


class ReportReader:
    """One JSON report on disk; every method reads it again, as a stream."""

    def __init__(self, path: Path) -> None:
        """`path`: a report written by this version (schema_version 1)."""
        self.path = path

    def head(self) -> ReportHead:
        """The fields before `sitemaps[]`; ReportReadError when it is not our report."""
        with self._open() as source:
            events = self._events(source)
            first = [next(events, None), next(events, None), next(events, None)]
            if first[:2] != [("", "start_map", None), ("", "map_key", "schema_version")]:
                raise ReportReadError(f"{self.path}: not a sitemap-audit JSON report")
            version = first[2][2] if first[2] is not None else None
            if version != SCHEMA_VERSION:
                raise ReportReadError(
                    f"{self.path}: schema_version {version}, this version reads {SCHEMA_VERSION}"
                )
            values = _head_values(events)
        try:
            return ReportHead(
                generated_at=str(values["generated_at"]),
                complete=bool(values["complete"]),
                tool_version=str(values["tool"]["version"]),
                config=values["config"],
                targets=tuple(target_of(item) for item in values["targets"]),
            )
        except (KeyError, TypeError) as exc:
            raise ReportReadError(
                f"{self.path}: not a sitemap-audit JSON report ({exc!r})"
            ) from None

    def sitemaps(self) -> Generator[SitemapRecord, None, None]:
        """Every document of the run, one at a time."""
        for obj in self._sitemap_objects():
            yield sitemap_of(obj)

    def urls(self) -> Generator[ReportedUrl, None, None]:
        """Every distinct URL of the run, one at a time."""
        for obj in self._items("urls.item"):
            yield url_of(obj)

    def run_findings(self) -> Generator[Finding, None, None]:
        """The findings about the run's URLs taken together (hreflang return links), kept ones."""
        for obj in self._items("run_findings.item"):
            yield finding_of(obj)

    def summary(self) -> ReportSummary:
        """The report's `summary` (a pass over the whole file: it comes last)."""
        for obj in self._items("summary"):
            return summary_of(obj)
        raise ReportReadError(f"{self.path}: not a complete report (no summary)")

    def diff(self) -> Obj | None:
        """The report's `diff` (with --baseline), else None."""
        if self.head().config.get("baseline") is None:
            return None  # no pass over the file for what cannot be there
        for obj in self._items("diff"):
            return dict(obj)
        return None

    def decision(
        self, *, head: ReportHead | None = None, summary: ReportSummary | None = None
    ) -> Decision:
        """The run's exit code and verdict, decided again from the report's records.

        The same decision as the run's (auditor.results.verdict), except that a run stopped by
        an internal failure reads as interrupted (the report does not say which): exit 3 both.
        `head` and `summary`, when already read, spare their passes.
        """
        head, summary = head or self.head(), summary or self.summary()
        diff = self.diff() if head.config.get("baseline") is not None else None
        sitemaps_with_errors, urls_with_errors = self._error_counts(summary)
        counts = RunCounts(
            by_severity={severity: summary.by_severity.get(severity, 0) for severity in Severity},
            documents=summary.sitemaps,
            sitemaps=summary.sitemaps - summary.sitemaps_by_kind.get("robots", 0),
            sitemaps_with_errors=sitemaps_with_errors,
            urls=summary.urls,
            urls_with_errors=urls_with_errors,
        )
        return decide(
            counts,
            fail_on=FailOn(head.config.get("fail_on", FailOn.ERROR.value)),
            complete=head.complete,
            failed=False,
            regressions=int(diff["regressions"]) if diff is not None else None,
        )

    def _error_counts(self, summary: ReportSummary) -> tuple[int, int]:
        """Sitemaps with errors (their own, or their URLs'), and URLs with errors."""
        erring = {record.url for record in self.sitemaps() if _has_errors(record)}
        erring.update(url for url, counts in summary.by_sitemap.items() if counts.failing)
        urls_with_errors = 0
        for obj in self._items("urls.item"):  # raw: no record made per URL
            if "alternate_of" in obj:  # no sitemap lists it: not one of the run's URLs
                continue
            if any(item["severity"] == _ERROR for item in obj["findings"]):
                urls_with_errors += 1
                erring.add(obj["sitemaps"][0])
        return len(erring), urls_with_errors

    def _open(self) -> IO[bytes]:
        try:
            return self.path.open("rb")
        except OSError as exc:
            raise ReportReadError(f"{self.path}: cannot read it ({exc.strerror})") from exc

    def _events(self, source: IO[bytes]) -> Iterator[tuple[str, str, Any]]:
        try:
            yield from ijson.parse(source, use_float=True)
        except ijson.JSONError as exc:  # IncompleteJSONError too: a truncated file
            raise ReportReadError(
                f"{self.path}: not a complete JSON report ({_reason(exc)})"
            ) from None

    def _items(self, prefix: str) -> Iterator[Obj]:
        """The values at `prefix`, built by ijson's C backend (when installed)."""
        with self._open() as source:
            try:
                yield from ijson.items(source, prefix, use_float=True)
            except ijson.JSONError as exc:
                reason = _reason(exc)
                raise ReportReadError(
                    f"{self.path}: not a complete JSON report ({reason})"
                ) from None

    def _sitemap_objects(self) -> Iterator[Obj]:
        """`sitemaps[]` entries; reading stops at the end of the array, before the URLs."""
        with self._open() as source:
            builder: ObjectBuilder | None = None
            for prefix, event, value in self._events(source):
                if prefix == "sitemaps.item":  # the entry's own start, keys and end
                    if event == "start_map":
                        builder = ObjectBuilder()
                    assert builder is not None
                    builder.event(event, value)
                    if event == "end_map":
                        yield builder.value
                        builder = None
                elif builder is not None:
                    builder.event(event, value)
                elif prefix == "sitemaps" and event == "end_array":
                    return


def _head_values(events: Iterator[tuple[str, str, Any]]) -> dict[str, Any]:
    """The top-level values before `sitemaps`, each built whole (they are small)."""
    values: dict[str, Any] = {}
    key = ""
    builder: ObjectBuilder | None = None
    for prefix, event, value in events:
        if builder is not None:
            builder.event(event, value)
            if prefix == key and event in ("end_map", "end_array"):
                values[key], builder = builder.value, None
        elif prefix == "" and event == "map_key":
            key = value
            if key == "sitemaps":
                break
        elif key in _HEAD_KEYS and event in ("start_map", "start_array"):
            builder = ObjectBuilder()
            builder.event(event, value)
        elif key in _HEAD_KEYS:
            values[key] = value
    return values


def _has_errors(record: SitemapRecord) -> bool:
    """Errors of the document's own, kept or only counted (as the HTML's sitemap rows say)."""
    if any(item.severity is Severity.ERROR for item in record.findings):
        return True
    return any(code.severity is Severity.ERROR for code in record.findings_omitted)


def _reason(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__  # yajl: 3 lines

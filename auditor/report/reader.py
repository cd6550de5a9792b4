"""A JSON report read back as a stream: its head, records, summary and decision.

The one reader of the report format (`read_report`, `--baseline`, the pre-commit hook). It reads
the layout auditor.report.json_writer writes: the head on the first line, then one record per
line in `sitemaps[]` and `urls[]`, then one line per closing field. Each line is parsed alone
(orjson), so a 1M-URL report is read in flat memory, and a hostile file is bounded: a line over
MAX_LINE_BYTES, or holding over MAX_CONTAINERS arrays and objects, is refused before it is
parsed (nesting costs nothing more: orjson parses without recursion). A report another tool
rewrote (`jq`) is read whole when it is no longer than one line may be. Blocking file reads:
call it from a thread inside an event loop.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from auditor.codes import Severity, by_severity
from auditor.config import FailOn
from auditor.errors import ReportReadError
from auditor.files import open_input
from auditor.models import Finding, Indexability, SitemapRecord, TargetRecord
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
from auditor.results.reach import outage, outage_text
from auditor.results.verdict import Decision, RunCounts, decide

# Bounds on one line (a record, or a closing field such as `summary`): the longest a real
# report writes is `summary.by_sitemap` (about 150 bytes and 2 objects a sitemap).
MAX_LINE_BYTES = 32 << 20
MAX_CONTAINERS = 1_000_000
READ_BYTES = 1 << 20
_FIRST = b'{"schema_version":'
_SECTIONS = {b'"sitemaps":[': "sitemaps", b'"urls":[': "urls"}
_ENDS = (b"]", b"],")
_ERROR = Severity.ERROR.value
_TAIL = ("run_findings", "run_findings_omitted", "diff", "summary")


@dataclass(frozen=True, slots=True)
class ReportHead:
    """What a report says before its records: when, by which version, with what options."""

    generated_at: str
    complete: bool
    tool_version: str
    config: Obj  # the run's options, as the report lists them (header values redacted)
    targets: tuple[TargetRecord, ...]
    # No target answered at all (auditor.results.reach): the report says so, or, from a version
    # that did not, its targets do.
    unreachable: bool = False

    def outage(self) -> str | None:
        """Why no target answered, when none did (the verdict's reason); else None."""
        if not self.unreachable:
            return None
        return outage_text(outage(self.targets)) or "no target answered"


class ReportReader:
    """One JSON report on disk; every method reads it again, as a stream."""

    def __init__(self, path: Path) -> None:
        """`path`: a report written by this version (schema_version 1)."""
        self.path = path

    def head(self) -> ReportHead:
        """The fields before `sitemaps[]`; ReportReadError when it is not our report."""
        values = self.head_values()
        try:
            targets = tuple(target_of(item) for item in values["targets"])
            said = values.get("unreachable")
            return ReportHead(
                generated_at=str(values["generated_at"]),
                complete=bool(values["complete"]),
                tool_version=str(values["tool"]["version"]),
                config=values["config"],
                targets=targets,
                unreachable=bool(outage(targets)) if said is None else bool(said),
            )
        except (KeyError, TypeError) as exc:
            raise ReportReadError(
                f"{self.path}: not a sitemap-audit JSON report ({exc!r})"
            ) from None

    def head_values(self) -> Obj:
        """The head's fields as JSON values (schema_version, tool, ..., targets)."""
        with self._open() as source:
            return self._head(source)[0]

    def sitemaps(self) -> Generator[SitemapRecord, None, None]:
        """Every document of the run, one at a time."""
        for obj in self.section("sitemaps"):
            yield sitemap_of(obj)

    def urls(self) -> Generator[ReportedUrl, None, None]:
        """Every distinct URL of the run, one at a time."""
        for obj in self.section("urls"):
            yield url_of(obj)

    def run_findings(self) -> Iterator[Finding]:
        """The findings about the run's URLs taken together (hreflang return links), kept ones."""
        for item in self.closing().get("run_findings") or ():
            yield finding_of(item)

    def summary(self) -> ReportSummary:
        """The report's `summary` (a pass over the whole file: it comes last)."""
        summary = self.closing().get("summary")
        if summary is None:
            raise ReportReadError(f"{self.path}: not a complete report (no summary)")
        return summary_of(summary)

    def diff(self) -> Obj | None:
        """The report's `diff` (with --baseline), else None."""
        if self.head().config.get("baseline") is None:
            return None  # no pass over the file for what cannot be there
        diff = self.closing().get("diff")
        return dict(diff) if diff is not None else None

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
            accepted=by_severity(summary.accepted),
            not_indexable=summary.indexability.get(Indexability.NOT_INDEXABLE, 0),
            known=summary.known,
        )
        return decide(
            counts,
            fail_on=FailOn(head.config.get("fail_on", FailOn.ERROR.value)),
            complete=head.complete,
            failed=False,
            regressions=int(diff["regressions"]) if diff is not None else None,
            unreachable=head.outage(),
        )

    def section(self, name: str) -> Generator[Obj, None, None]:
        """The raw entries of `sitemaps[]` or `urls[]`, one at a time."""
        for where, obj in self.records(stop_after=name):
            if where == name:
                yield obj

    def records(self, *, stop_after: str = "tail") -> Generator[tuple[str, Obj], None, None]:
        """Everything after the head, in one pass, up to the end of `stop_after`.

        ("sitemaps", entry), ("urls", entry), then ("tail", {field: value}) a closing field.
        """
        order = ("sitemaps", "urls", "tail")
        with self._open() as source:
            head, whole = self._head(source)
            if whole:
                for where in order[: order.index(stop_after) + 1]:
                    items = head.get(where) if where != "tail" else [_tail_of(head)]
                    yield from ((where, item) for item in items or ())
                return
            for where, line in self._walk(source):
                if order.index(where) > order.index(stop_after):
                    return
                yield where, (self._loads(line) if where != "tail" else self._field(line))

    def closing(self) -> Obj:
        """The fields after `urls[]`: run_findings, run_findings_omitted, diff, summary."""
        fields: dict[str, Any] = {}
        for where, obj in self.records():
            if where == "tail":
                fields.update(obj)
        return fields

    def _field(self, line: bytes) -> Obj:
        """A closing field's line: `"key":value,`, or the last, which also closes the report."""
        text = line[:-1] + b"}" if line.endswith(b",") else line
        return self._loads(b"{" + text)  # type: ignore[no-any-return]

    def _error_counts(self, summary: ReportSummary) -> tuple[int, int]:
        """Sitemaps with errors (their own, or their URLs'), and URLs with errors."""
        erring = {record.url for record in self.sitemaps() if _has_errors(record)}
        erring.update(url for url, counts in summary.by_sitemap.items() if counts.failing)
        urls_with_errors = 0
        for obj in self.section("urls"):  # raw: no record made per URL
            if not obj["sitemaps"]:  # an alternate or a page only crawled: no URL of the run
                continue
            if any(item["severity"] == _ERROR for item in obj["findings"]):
                urls_with_errors += 1
                erring.add(obj["sitemaps"][0])
        return len(erring), urls_with_errors

    def _open(self) -> IO[bytes]:
        try:
            return open_input(self.path, buffering=READ_BYTES)  # never a FIFO, a device
        except OSError as exc:
            raise ReportReadError(f"{self.path}: cannot read it ({exc.strerror})") from exc

    def _head(self, source: IO[bytes]) -> tuple[dict[str, Any], bool]:
        """The report's fields up to `targets`, checked to be ours, from its first line.

        A report laid out otherwise (rewritten by another tool: `jq`, a JSON library) is read
        whole when it is no longer than a line may be; then every field is there, and True.
        """
        line = self._line(source) or b""
        whole = not (line.startswith(_FIRST) and line.endswith(b","))
        if whole:
            line += source.read(MAX_LINE_BYTES + 1 - len(line))
            if len(line) > MAX_LINE_BYTES:
                raise ReportReadError(
                    f"{self.path}: not laid out as sitemap-audit writes it (one record a line), "
                    f"and over {MAX_LINE_BYTES >> 20} MiB"
                )
        values = self._loads(line if whole else line[:-1] + b"}")
        if not isinstance(values, dict) or "schema_version" not in values:
            raise ReportReadError(f"{self.path}: not a sitemap-audit JSON report")
        version = values["schema_version"]
        if version != SCHEMA_VERSION:
            raise ReportReadError(
                f"{self.path}: schema_version {version}, this version reads {SCHEMA_VERSION}"
            )
        return values, whole

    def _walk(self, source: IO[bytes]) -> Iterator[tuple[str, bytes]]:
        """("sitemaps" | "urls", an entry's line) and ("tail", a closing field's line).

        `source` is past the head line.
        """
        section: str | None = None
        while (line := self._line(source)) is not None:
            if not line:
                continue  # an empty array's blank line
            if section is not None:
                if line in _ENDS:
                    section = None
                else:
                    yield section, line.removesuffix(b",")
            elif line in _SECTIONS:
                section = _SECTIONS[line]
            else:
                yield "tail", line
        if section is not None:
            raise ReportReadError(f"{self.path}: not a complete JSON report (cut off)")

    def _line(self, source: IO[bytes]) -> bytes | None:
        """The next line without its end; None at the end of the file. Bounded."""
        line = source.readline(MAX_LINE_BYTES + 1)
        if len(line) > MAX_LINE_BYTES:
            raise ReportReadError(
                f"{self.path}: a line longer than {MAX_LINE_BYTES >> 20} MiB: not a report "
                "as sitemap-audit writes it"
            )
        return line.rstrip(b"\r\n") if line else None

    def _loads(self, line: bytes) -> Any:
        if line.count(b"{") + line.count(b"[") > MAX_CONTAINERS:
            raise ReportReadError(
                f"{self.path}: a line with over {MAX_CONTAINERS:,} arrays and objects: not a "
                "report as sitemap-audit writes it"
            )
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise ReportReadError(
                f"{self.path}: not a complete JSON report as sitemap-audit writes it ({exc})"
            ) from None


def _tail_of(report: Obj) -> Obj:
    """The closing fields of a report read whole."""
    return {key: report[key] for key in _TAIL if key in report}


def _has_errors(record: SitemapRecord) -> bool:
    """Errors of the document's own, kept or only counted (as the HTML's sitemap rows say)."""
    if any(item.severity is Severity.ERROR for item in record.findings):
        return True
    return any(code.severity is Severity.ERROR for code in record.findings_omitted)

"""`--junit PATH`: the run as JUnit XML, which GitLab, Jenkins and GitHub Actions show natively.

As CI dashboards read it: one suite per sitemap, holding a case for the document itself and one
for each URL it lists first, passing cases included (lychee's form), so that "55 tests, 48
failures" never stands for a site that is 1.6% broken; a suite for the targets (discovery) and
one for the findings about the run's URLs taken together (hreflang return links). A case fails
on a finding at or above `--fail-on` that is not accepted (`--accept-file`): its failure names
the code, says what is wrong and how to fix it; the case's `file` is its sitemap and `line` the
entry's. With `--baseline`, a suite of regressions holds one failing case per regression
(docs/explanation/design.md#regressions): as many cases as the run has regressions, and a
subject that regressed fails there alone, so that each regression fails once whatever
`--fail-on` says (its case in its sitemap's suite passes, its findings in `system-out`). A run
that reached no target fails its targets' cases whatever `--fail-on` says.
`--junit-failures-only` keeps the failing cases alone. At a million URLs the cases wait in a
sqlite file beside the report, grouped by sitemap when the file is written: memory stays flat.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from xml.sax.saxutils import escape, quoteattr

from auditor.codes import Code
from auditor.config import FailOn
from auditor.files import replaced_atomically, scratch_database, written
from auditor.models import (
    Finding,
    NotIndexable,
    RunFindings,
    SitemapRecord,
    TargetRecord,
    UrlRecord,
)
from auditor.report.places import case_file, class_name
from auditor.report.section import Regression, RegressionSource
from auditor.results.reach import unreached_finding

MAX_LINES = 20  # findings written out per failing case; all are counted
FLUSH_CASES = 5_000  # cases gathered before a write (a thread hop each)
REGRESSION = "regression"  # the failure type of a regression case
_KEPT_IN_MEMORY = ("targets", "run")  # suites of few cases, never spooled
CACHE_KIB = 2_048  # the spool's page cache (grouping by suite spills to temporary files beyond)
# A failing case's subject as a regression names it: its kind and subject, one string.
_SEP = "\x1f"
REGRESSED_NOTE = "counted once, as a regression (the regressions suite); its findings:"


@dataclass(slots=True)
class SuiteCounts:
    """A suite's name and counts, known before its cases are written."""

    name: str
    tests: int = 0
    failures: int = 0


class JunitCases:
    """The cases, made as records pass the sink: a RecordWriter (auditor.results.sink).

    Cases of sitemaps go to a spool (sqlite) a batch at a time; the suites' counts stay here,
    one per sitemap. An async context manager: the spool goes when the run is done.
    """

    def __init__(
        self,
        folder: Path,
        fail_on: FailOn,
        *,
        failures_only: bool = False,
        workspace: Path | None = None,
    ) -> None:
        """A spool in `folder` (the report's); cases fail at `fail_on`.

        `workspace`: local sitemaps are named relative to it in `file` (a CI job's checkout).
        """
        self._fail_on = fail_on
        self.workspace = workspace
        self._failures_only = failures_only
        self._suites: dict[str, SuiteCounts] = {}  # by sitemap URL, in the order first seen
        self._ids: dict[str, int] = {}
        # A case's XML, and its subject when it fails (`kind<US>subject`: a regression's key).
        self._memory: dict[str, list[tuple[str, str | None]]] = {n: [] for n in _KEPT_IN_MEMORY}
        self._batch: list[tuple[int, str, str | None]] = []
        self._moved: dict[str, int] = {}  # by suite: its failing cases that regressed
        with written(f"the JUnit cases' scratch file in {folder}"):
            self.path, self._db = scratch_database(
                folder,
                prefix=".junit-",
                cache_kib=CACHE_KIB,
                schema="CREATE TABLE cases (suite, xml, key);",
            )
        self._counted_once = False  # the regressions' table made (count_once), only when needed

    async def __aenter__(self) -> JunitCases:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await asyncio.to_thread(self.discard)

    def discard(self) -> None:
        """Drop the spool (a second call does nothing)."""
        self._db.close()
        self.path.unlink(missing_ok=True)

    # --- as records pass ---

    def add_target(self, record: TargetRecord, *, unreachable: bool = False) -> None:
        """A target: its discovery findings.

        `unreachable`: the run reached no target (auditor.results.reach), and the finding that
        says why fails the case whatever `--fail-on` says, as the run's exit code does.
        """
        forced = tuple(item for item in record.findings if unreachable and unreached_finding(item))
        self._add(
            "targets",
            record.input,
            record.findings,
            file=None,
            line=None,
            forced=forced,
            kind="target",
        )

    def add_sitemap(self, record: SitemapRecord) -> None:
        """A document read (robots.txt too): a case for itself, in its own suite."""
        omitted = [(code, n) for code, n in record.findings_omitted.items()]
        self._add(
            record.url,
            record.url,
            record.findings,
            file=record.url,
            line=None,
            omitted=omitted,
            kind="sitemap",
        )

    def add_url(self, record: UrlRecord) -> None:
        """A URL, in the suite of the sitemap that listed it first.

        Its findings of this run: a carried verdict (--budget) failed an earlier run, not this one.
        """
        check = record.fresh_check
        findings = record.findings + (check.findings if check else ())
        suite = record.sitemaps[0] if record.sitemaps else (record.alternate_of or "alternates")
        self._add(suite, record.loc, findings, file=suite, line=record.line)

    def add_run_findings(self, item: RunFindings) -> None:
        """Findings about the run's URLs taken together: a case each (the kept ones)."""
        for found in item.findings:
            about = found.url or found.sitemap or ""
            self._add("run", about, (found,), file=found.sitemap, line=None)

    async def flush_if_full(self) -> None:
        """Write the gathered cases once there are enough of them."""
        if len(self._batch) >= FLUSH_CASES:
            batch, self._batch = self._batch, []
            with written(f"the JUnit cases' scratch file {self.path}"):
                await asyncio.to_thread(self._write, batch)

    def _write(self, batch: list[tuple[int, str, str | None]]) -> None:
        self._db.execute("BEGIN")
        self._db.executemany("INSERT INTO cases VALUES (?, ?, ?)", batch)
        self._db.execute("COMMIT")

    def _add(
        self,
        suite: str,
        name: str,
        findings: Sequence[Finding],
        *,
        file: str | None,
        line: int | None,
        omitted: Iterable[tuple[Code, int]] = (),
        forced: Sequence[Finding] = (),
        kind: str = "url",
    ) -> None:
        """One case; `kind`: what it is about, as a regression says (url, sitemap, target)."""
        failing = [item for item in findings if item in forced or self._fails(item)]
        counted = [(code, n) for code, n in omitted if self._fail_on.trips(code.severity)]
        if self._failures_only and not failing and not counted:
            return
        counts = self._suites.get(suite)
        if counts is None:
            counts = self._suites[suite] = SuiteCounts(suite)
            self._ids[suite] = len(self._ids)
        counts.tests += 1
        counts.failures += bool(failing or counted)
        where = case_file(file, workspace=self.workspace)
        xml = case_xml(suite, name, failing, counted, file=where, line=line)
        key = f"{kind}{_SEP}{name}" if failing or counted else None
        if suite in self._memory:
            self._memory[suite].append((xml, key))
        else:
            self._batch.append((self._ids[suite], xml, key))

    def _fails(self, item: Finding) -> bool:
        return not item.accepted and self._fail_on.trips(item.severity)

    # --- the file ---

    def count_once(self, regressed: Iterable[Regression]) -> None:
        """The run's regressions (blocking): their subjects' cases fail in that suite alone.

        A failing case whose subject regressed passes in its own suite, its findings kept in
        `system-out`, so that each regression fails once whatever `--fail-on` says.
        """
        self._flush_batch()
        keys = ((f"{item.kind}{_SEP}{item.subject}",) for item in regressed)
        self._db.execute("CREATE TABLE regressed (key PRIMARY KEY) WITHOUT ROWID")
        self._counted_once = True
        self._db.execute("BEGIN")
        self._db.executemany("INSERT OR IGNORE INTO regressed VALUES (?)", keys)
        self._db.execute("COMMIT")
        moved = "SELECT suite, count(*) FROM cases JOIN regressed USING (key) GROUP BY suite"
        by_id = {number: suite for suite, number in self._ids.items()}
        self._moved = {by_id[suite]: n for suite, n in self._db.execute(moved)}
        for suite, cases in self._memory.items():
            self._moved[suite] = sum(self._regressed(key) for _xml, key in cases)

    def _regressed(self, key: str | None) -> bool:
        if key is None or not self._counted_once:
            return False
        query = "SELECT 1 FROM regressed WHERE key = ?"
        return self._db.execute(query, (key,)).fetchone() is not None

    def _counts(self, counts: SuiteCounts) -> SuiteCounts:
        """A suite's counts, its cases that regressed failing elsewhere (or left out)."""
        moved = self._moved.get(counts.name, 0)
        tests = counts.tests - moved if self._failures_only else counts.tests
        return SuiteCounts(counts.name, tests, counts.failures - moved)

    def totals(self) -> tuple[int, int]:
        """Cases and failing cases in every suite gathered (the regressions apart)."""
        suites = [self._counts(counts) for counts in self._suites.values()]
        return sum(c.tests for c in suites), sum(c.failures for c in suites)

    def _flush_batch(self) -> None:
        if self._batch:
            self._write(self._batch)
            self._batch = []

    def suites(self) -> Iterator[tuple[SuiteCounts, Iterator[str]]]:
        """Every suite with its cases' XML, the targets first (blocking: it reads the spool)."""
        self._flush_batch()
        self._db.execute("CREATE INDEX IF NOT EXISTS cases_by_suite ON cases (suite)")
        named = {"targets": "targets", "run": "run (hreflang return links)"}
        for name in ("targets", *(s for s in self._suites if s not in _KEPT_IN_MEMORY), "run"):
            counts = self._suites.get(name)
            if counts is None:
                continue
            rows = (
                ((xml, self._regressed(key)) for xml, key in self._memory[name])
                if name in self._memory
                else self._spooled(name)
            )
            cases = (
                passed_as_regression(xml) if regressed else xml
                for xml, regressed in rows
                if not (regressed and self._failures_only)
            )
            counted = self._counts(counts)
            yield SuiteCounts(named.get(name, name), counted.tests, counted.failures), cases

    def _spooled(self, suite: str) -> Iterator[tuple[str, bool]]:
        query = "SELECT xml, 0 FROM cases WHERE suite = ? ORDER BY rowid"
        if self._counted_once:
            query = (
                "SELECT xml, r.key IS NOT NULL FROM cases LEFT JOIN regressed r USING (key) "
                "WHERE suite = ? ORDER BY cases.rowid"
            )
        for xml, regressed in self._db.execute(query, (self._ids[suite],)):
            yield xml, bool(regressed)


def passed_as_regression(xml: str) -> str:
    """A failing case whose subject regressed: passing, its failure's text in `system-out`.

    Attribute values are escaped (quoteattr): `><failure ` and `>` never occur inside them.
    """
    head, _, failure = xml.partition("><failure ")
    body = failure[failure.index(">") + 1 : failure.rindex("</failure>")]
    return f"{head}><system-out>{escape(REGRESSED_NOTE)}\n{body}</system-out></testcase>"


def case_xml(
    suite: str,
    name: str,
    failing: Sequence[Finding],
    counted: Sequence[tuple[Code, int]],
    *,
    file: str | None,
    line: int | None,
) -> str:
    """One `<testcase>`: failing with its first code, what is wrong and how to fix it."""
    where = (f" file={quoteattr(xml_text(file))}" if file else "") + (
        f' line="{line}"' if line is not None else ""
    )
    classname = quoteattr(xml_text(class_name(suite)))
    head = f"<testcase classname={classname} name={quoteattr(xml_text(name))}{where}"
    if not failing and not counted:
        return head + "/>"
    lines = [f"{item.code.value}: {item.message}\n  fix: {item.code.info.fix}" for item in failing]
    lines += [f"{code.value}: {code.info.title} ({n:,} more, counted only)" for code, n in counted]
    first = failing[0].code if failing else counted[0][0]
    message = f"{first.value}: {failing[0].message if failing else first.info.title}"
    shown = lines[:MAX_LINES]
    if len(lines) > MAX_LINES:
        shown.append(f"... {len(lines) - MAX_LINES} more")
    return (
        f"{head}><failure type={quoteattr(first.value)} message={quoteattr(xml_text(message))}>"
        f"{escape(xml_text(chr(10).join(shown)))}</failure></testcase>"
    )


def regression_case(item: Regression, *, workspace: Path | None = None) -> str:
    """One regression as a failing case: `URL code`, its sitemap as `file`, its line."""
    where = case_file(item.sitemap if item.kind == "url" else item.subject, workspace=workspace)
    lines = [f"{code}: new since the baseline" for code in item.codes]
    if item.verdict is not None:
        lines.append(f"became not indexable: {NotIndexable(item.verdict).label}")
    attrs = f" file={quoteattr(xml_text(where))}" if where else ""
    attrs += f' line="{item.line}"' if item.line is not None else ""
    message = f"{REGRESSION}: {item.first_code}"
    return (
        f'<testcase classname="sitemap-audit.{REGRESSION}s" '
        f"name={quoteattr(xml_text(f'{item.subject} {item.first_code}'))}{attrs}>"
        f'<failure type="{REGRESSION}" message={quoteattr(xml_text(message))}>'
        f"{escape(xml_text(chr(10).join(lines)))}</failure></testcase>"
    )


def xml_text(text: str) -> str:
    """XML 1.0 cannot hold most control characters, which network strings may carry."""
    return "".join(c if c.isprintable() or c in "\n\t" else "?" for c in text)


async def write_junit(
    path: Path,
    cases: JunitCases,
    *,
    duration_s: float,
    regressions: RegressionSource | None = None,
) -> None:
    """Write the file atomically: a temp file beside it, then a rename."""
    await asyncio.to_thread(_write, path, cases, duration_s, regressions)


def _write(
    path: Path, cases: JunitCases, duration_s: float, regressions: RegressionSource | None
) -> None:
    if regressions is not None and regressions.regressions:
        with written(f"the JUnit file {path}"):  # the spool beside the report: a full disk
            cases.count_once(regressions.regression_rows())
    tests, failures = cases.totals()
    if regressions is not None:
        tests += regressions.regressions
        failures += regressions.regressions
    # Its cases come from the spool, its regressions from the baseline's store: their disk's
    # failure is this file's too.
    with written(f"the JUnit file {path}"), replaced_atomically(path) as out:
        out.write(b'<?xml version="1.0" encoding="utf-8"?>\n')
        out.write(
            f'<testsuites name="sitemap-audit" time="{duration_s:.3f}" tests="{tests}" '
            f'failures="{failures}" errors="0">\n'.encode()
        )
        for counts, xml in cases.suites():
            _write_suite(out, counts, xml)
        if regressions is not None:
            rows = (
                regression_case(item, workspace=cases.workspace)
                for item in regressions.regression_rows()
            )
            count = regressions.regressions
            _write_suite(out, SuiteCounts(f"{REGRESSION}s", count, count), rows)
        out.write(b"</testsuites>\n")


def _write_suite(out: BinaryIO, counts: SuiteCounts, cases: Iterable[str]) -> None:
    out.write(
        f'<testsuite name={quoteattr(xml_text(counts.name))} tests="{counts.tests}" '
        f'failures="{counts.failures}" errors="0" skipped="0">\n'.encode()
    )
    for xml in cases:
        out.write(xml.encode("utf-8", "replace") + b"\n")
    out.write(b"</testsuite>\n")

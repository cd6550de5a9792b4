"""Every URL that fails the run, as records pass the sink: the Markdown summary's list.

A URL, document or target fails with a finding at or above `--fail-on` that is not accepted
(`--accept-file`), and with `--baseline` when it regressed (its regressions are added after the
run). Kept grouped by the sitemap that listed it first, up to a budget of bytes (a job summary
shows at most 1 MiB); past it each group only counts what it leaves out. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from auditor.codes import Code
from auditor.config import FailOn
from auditor.models import Finding, RunFindings, SitemapRecord, TargetRecord, UrlRecord
from auditor.report.section import Regression

TARGETS = "targets"  # the group of the targets' own findings (discovery)
RUN = "run"  # findings about the run's URLs taken together (hreflang return links)
ALTERNATES = "alternates"  # hreflang alternates no sitemap lists
CRAWLED = "crawled"  # pages only the crawl found (--crawl)
_LINE_BYTES = 48  # what a kept line costs beyond its strings: markup, a status, a code


@dataclass(slots=True)
class Failing:
    """One subject that fails the run, as its line will say it."""

    subject: str  # a URL; for a document's own findings its own URL
    cause: str  # its status (`404`, `301 → 404`), else what went wrong in words
    codes: list[Code]  # its failing codes, worst first (empty: it only became not indexable)
    new: set[str] = field(default_factory=set)  # codes new since the baseline (a regression)
    itself: bool = False  # a document's (or target's) own finding, not a URL it lists
    lost_indexability: str | None = None  # regressed: the reason it is not indexable now
    gated: bool = True  # fails at --fail-on (False: listed only as a regression)


@dataclass(slots=True)
class SitemapGroup:
    """The failing subjects of one sitemap (or of the targets, or of the run)."""

    place: str  # the sitemap's URL, or TARGETS, RUN, ALTERNATES
    kept: list[Failing] = field(default_factory=list)
    failing: int = 0  # subjects failing at --fail-on, kept or not
    kept_failing: int = 0  # of them, those kept
    regressed_left_out: int = 0  # regressions neither kept nor among the kept lines

    @property
    def left_out(self) -> int:
        """Subjects failing at --fail-on that the budget left out of the list."""
        return self.failing - self.kept_failing


class FailingUrls:
    """A RecordWriter (auditor.results.sink) keeping what fails the run, within a budget."""

    def __init__(self, fail_on: FailOn, *, budget_bytes: int) -> None:
        """Subjects fail at `fail_on`; lines are kept until they would pass `budget_bytes`."""
        self._fail_on = fail_on
        self._budget = budget_bytes
        self._used = 0
        self.groups: dict[str, SitemapGroup] = {}  # in the order first seen
        self._kept: dict[tuple[str, str], Failing] = {}  # by (kind, subject), for regressions
        self.failing = 0  # every failing subject
        self.urls = 0  # of them, URLs (the others are documents', targets' and the run's findings)
        self.regressions = 0  # every regression added

    # --- as records pass ---

    def add_sitemap(self, record: SitemapRecord) -> None:
        """A document: a line for each of its own failing findings (its entries' included)."""
        for item in self._failing_of(record.findings):
            subject = item.url or record.url
            self._add(record.url, "sitemap", subject, item.message, [item.code], itself=True)

    def add_url(self, record: UrlRecord) -> None:
        """A URL: one line with its failing codes, under the sitemap that listed it first."""
        check = record.fresh_check
        found = record.findings + (check.findings if check is not None else ())
        failing = self._failing_of(found)
        if not failing:
            return
        place = record.sitemaps[0] if record.sitemaps else None
        place = place or (ALTERNATES if record.alternate_of is not None else CRAWLED)
        codes = _worst_first(item.code for item in failing)
        self.urls += 1
        self._add(place, "url", record.loc, cause_of(record, failing), codes)

    def add_run_findings(self, item: RunFindings) -> None:
        """Findings about the run's URLs together: a line each (the kept ones)."""
        for found in self._failing_of(item.findings):
            subject = found.url or found.sitemap or ""
            self._add(RUN, "run", subject, found.message, [found.code])

    async def flush_if_full(self) -> None:
        """Nothing is buffered for a file: the list is written with the summary."""

    def add_target(self, record: TargetRecord) -> None:
        """A target's own failing findings (discovery), known when the run ends."""
        for item in self._failing_of(record.findings):
            self._add(TARGETS, "target", record.input, item.message, [item.code], itself=True)

    def add_regressions(self, rows: Iterable[Regression]) -> None:
        """The run's regressions (read back after it): marked on their line, or lines apart."""
        for row in rows:
            self.regressions += 1
            known = self._kept.get((row.kind, row.subject))
            if known is not None:
                known.new.update(row.codes or ("not_indexable",))
                known.lost_indexability = row.verdict
                continue
            place = _place_of(row)
            codes = _worst_first(Code(code) for code in row.codes if code in _KNOWN)
            line = Failing(
                row.subject,
                "new since the baseline",
                codes,
                set(row.codes or ("not_indexable",)),
                itself=row.kind != "url",
                lost_indexability=row.verdict,
                gated=False,
            )
            if not self._keep(place, line, row.kind):
                self._group(place).regressed_left_out += 1

    # --- inside ---

    def _failing_of(self, findings: Sequence[Finding]) -> list[Finding]:
        trips = self._fail_on.trips
        return [item for item in findings if not item.accepted and trips(item.severity)]

    def _add(
        self,
        place: str,
        kind: str,
        subject: str,
        cause: str,
        codes: list[Code],
        *,
        itself: bool = False,
    ) -> None:
        self.failing += 1
        self._group(place).failing += 1
        self._keep(place, Failing(subject, cause, codes, itself=itself), kind)

    def _keep(self, place: str, line: Failing, kind: str) -> bool:
        cost = len(line.subject) + len(line.cause) + _LINE_BYTES * max(1, len(line.codes))
        if self._used + cost > self._budget:
            return False
        self._used += cost
        group = self._group(place)
        group.kept.append(line)
        group.kept_failing += line.gated
        self._kept.setdefault((kind, line.subject), line)
        return True

    def _group(self, place: str) -> SitemapGroup:
        group = self.groups.get(place)
        if group is None:
            group = self.groups[place] = SitemapGroup(place)
        return group


_KNOWN = frozenset(code.value for code in Code)


def _place_of(row: Regression) -> str:
    if row.kind == "target":
        return TARGETS
    if row.kind == "sitemap":
        return row.subject
    return row.sitemap or ALTERNATES


def _worst_first(codes: Iterable[Code]) -> list[Code]:
    return sorted(set(codes), key=lambda code: (-code.severity.rank, code.value))


def cause_of(record: UrlRecord, failing: Sequence[Finding]) -> str:
    """What a URL's line says went wrong: its status, where its redirects led, or the cause.

    A finding of its check: `404`, `301 → 404`, or with no answer its message (`connection
    refused`); a finding of its listing (`lastmod.invalid`): that finding's message.
    """
    check = record.fresh_check
    worst = min(failing, key=lambda item: (-item.severity.rank, item.code.value))
    if check is None or check.status is None or worst not in check.findings:
        return worst.message
    if not check.redirects:
        return str(check.status)
    end = str(check.final_status) if check.final_status is not None else worst.message
    return f"{check.status} → {end}"

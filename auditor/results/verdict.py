"""The one decision of a run: its exit code and its verdict line, from counts alone.

The terminal, the HTML headline, JUnit and the metrics all read the Decision made here; nothing
else decides whether a run passed. Pure: no I/O.

See docs/explanation/design.md#exit-codes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from auditor.codes import Severity, by_severity
from auditor.config import FailOn
from auditor.errors import ExitCode
from auditor.models import Indexability, SitemapKind
from auditor.results.samples import Samples
from auditor.results.summary import Summary


class Outcome(StrEnum):
    """What the run says about the site (or about itself, when it did not finish)."""

    PASS = "PASS"  # noqa: S105 - a verdict, not a password; nothing at or above --fail-on
    FAIL = "FAIL"  # findings at or above --fail-on, or regressions since the baseline
    INCOMPLETE = "INCOMPLETE"  # interrupted: the counts cover what was read
    FAILED = "FAILED"  # an internal failure stopped the run
    UNREACHABLE = "UNREACHABLE"  # no target answered at all: an outage (auditor.results.reach)


# Each outcome has one exit code (docs/explanation/design.md#exit-codes).
EXIT_CODES = {
    Outcome.PASS: ExitCode.OK,
    Outcome.FAIL: ExitCode.FINDINGS,
    Outcome.INCOMPLETE: ExitCode.FAILED,
    Outcome.FAILED: ExitCode.FAILED,
    Outcome.UNREACHABLE: ExitCode.FAILED,
}


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome, and a short sentence of counts that says why."""

    outcome: Outcome
    text: str

    @property
    def line(self) -> str:
        """`FAIL: 12 errors in 3 of 9 sitemaps; 245 of 1,200 URLs with errors`."""
        return f"{self.outcome.value}: {self.text}"


@dataclass(frozen=True, slots=True)
class Decision:
    """How the run ends: the exit code, and the verdict line that says why."""

    verdict: Verdict
    regressions: int | None  # since the baseline (None: no --baseline)
    # Findings at or above --fail-on (not accepted) failed the run: the gate that fired, with
    # the regressions (auditor.results.gates says which in words).
    tripped: bool = False

    @property
    def exit_code(self) -> ExitCode:
        """The process's exit code: the verdict's outcome decides it, nothing else."""
        return EXIT_CODES[self.verdict.outcome]


@dataclass(frozen=True, slots=True)
class KnownCounts:
    """With --history: the site as last known beside what this run requested.

    A run with a budget requests part of the site and carries the rest's last verdicts
    (auditor.wings.history): its verdict line speaks of the site as last known, and says
    how much of it this run checked, never a part as the whole.
    """

    not_indexable: int  # listed URLs whose last verdict, fresh or carried, is not indexable
    requested: int  # URLs this run requested (the run it resumed included)
    never_checked: int  # listed URLs without any verdict yet


@dataclass(frozen=True, slots=True)
class RunCounts:
    """What the decision reads of a run: counts only."""

    by_severity: Mapping[Severity, int]  # every finding, accepted ones included
    documents: int  # read, robots.txt included
    sitemaps: int  # robots.txt left out
    sitemaps_with_errors: int  # errors of their own, or listing URLs that have errors
    urls: int
    urls_with_errors: int  # distinct URLs with an error, their listing's or their check's
    # Known issues (--accept-file), by severity: reported, never failing the run.
    accepted: Mapping[Severity, int] = field(default_factory=dict)
    not_indexable: int = 0  # listed URLs a search engine cannot index (this run's checks)
    known: KnownCounts | None = None  # with --history: the site as last known
    clauses: tuple[str, ...] = ()  # the wings' sections' words (auditor.report.section)

    def gating(self) -> dict[Severity, int]:
        """The findings that may fail the run: all but the accepted ones."""
        return {s: n - self.accepted.get(s, 0) for s, n in self.by_severity.items()}


def run_counts(
    summary: Summary,
    samples: Samples,
    *,
    known: KnownCounts | None = None,
    clauses: tuple[str, ...] = (),
) -> RunCounts:
    """The counts of a run, from its summary and the samples' tallies.

    `known`: the site as last known, where a section knows it (--history); `clauses`: what the
    sections add to the verdict line.
    """
    failing = {url for url, counts in summary.by_sitemap.items() if counts.failing}
    erring = samples.erring_sitemaps | set(samples.url_errors) | failing
    return RunCounts(
        by_severity=summary.by_severity(),
        documents=summary.sitemaps,
        sitemaps=summary.sitemaps - summary.sitemaps_by_kind[SitemapKind.ROBOTS.value],
        sitemaps_with_errors=len(erring),
        urls=summary.urls,
        urls_with_errors=samples.urls_with_errors,
        accepted=by_severity(summary.accepted),
        not_indexable=summary.indexability[Indexability.NOT_INDEXABLE],
        known=known,
        clauses=clauses,
    )


def decide(
    counts: RunCounts,
    *,
    fail_on: FailOn,
    complete: bool,
    failed: bool,
    regressions: int | None = None,
    stalled: str | None = None,
    unreachable: str | None = None,
) -> Decision:
    """The exit code and the verdict (docs/explanation/design.md#exit-codes, #regressions).

    An internal failure or an interrupted run: exit 3, whatever was found. A finished run that
    reached no target (`unreachable`: why, auditor.results.reach) is an outage: exit 3, never a
    site's findings nor a baseline to compare with. A finished run fails on a finding at or
    above --fail-on that is not accepted, and on any regression since the baseline whatever
    --fail-on says (regressions are counted at --fail-on-new, and never with `--fail-on-new
    never`: auditor.wings.baseline.compare); else it passes. `stalled`: what a run the watchdog
    stopped waited for (auditor.processes.watchdog).
    """
    so_far = _counts(counts.by_severity) or "no findings"
    if failed:
        verdict = Verdict(Outcome.FAILED, f"an internal error stopped the run; so far {so_far}")
    elif not complete:
        read = f"{_n(counts.documents, 'document')} and {_n(counts.urls, 'URL')}"
        how = f"stuck after {read} ({stalled})" if stalled else f"interrupted after {read}"
        verdict = Verdict(Outcome.INCOMPLETE, f"{how}; so far {so_far}")
    elif unreachable is not None:
        verdict = Verdict(Outcome.UNREACHABLE, f"site unreachable: {unreachable}")
    elif regressions or _tripping(counts, fail_on):
        verdict = Verdict(Outcome.FAIL, _failure(counts, fail_on, regressions or 0))
        return Decision(verdict, regressions, tripped=bool(_tripping(counts, fail_on)))
    else:
        verdict = Verdict(Outcome.PASS, _pass(counts, fail_on, regressions))
    return Decision(verdict, regressions)


def judge(
    summary: Summary,
    samples: Samples,
    *,
    fail_on: FailOn,
    complete: bool,
    failed: bool,
    regressions: int | None = None,
    stalled: str | None = None,
    unreachable: str | None = None,
    known: KnownCounts | None = None,
    clauses: tuple[str, ...] = (),
) -> Decision:
    """`decide` on a run's summary and samples.

    `known`: the site as last known (--history); `clauses`: the sections' words for the verdict.
    """
    return decide(
        run_counts(summary, samples, known=known, clauses=clauses),
        fail_on=fail_on,
        complete=complete,
        failed=failed,
        regressions=regressions,
        stalled=stalled,
        unreachable=unreachable,
    )


def _tripping(counts: RunCounts, fail_on: FailOn) -> dict[Severity, int]:
    return {s: n for s, n in counts.gating().items() if n and fail_on.trips(s)}


def _pass(counts: RunCounts, fail_on: FailOn, regressions: int | None) -> str:
    scope = f"{_n(counts.sitemaps, 'sitemap')} and {_n(counts.urls, 'URL')}"
    found = _counts(counts.gating())
    # With a budget, what was found is this run's: never "no findings" about the whole site.
    now = " this run" if counts.known is not None else ""
    if fail_on is FailOn.NEVER:
        text = f"{scope} (--fail-on never); {found or 'no findings'}{now}"
    elif not found:
        text = f"{scope}, no findings{now}"
    else:
        text = f"{scope}, no {fail_on.value}s{now}; {found}"
    text += _not_indexable(counts) + _clauses(counts) + _accepted(counts)
    return text if regressions is None else f"{text}; no regressions since the baseline"


def _failure(counts: RunCounts, fail_on: FailOn, regressions: int) -> str:
    tripping = _tripping(counts, fail_on)
    parts = []
    if regressions:
        parts.append(f"{_n(regressions, 'regression')} since the baseline")
    if tripping:
        where = _counts(tripping)
        if counts.sitemaps_with_errors and counts.sitemaps:
            where += f" in {counts.sitemaps_with_errors:,} of {_n(counts.sitemaps, 'sitemap')}"
        parts.append(where)
    if counts.urls_with_errors and counts.known is not None:  # this run's requests alone
        parts.append(f"{_n(counts.urls_with_errors, 'URL')} with errors this run")
    elif counts.urls_with_errors:
        parts.append(f"{counts.urls_with_errors:,} of {_n(counts.urls, 'URL')} with errors")
    milder = {s: n for s, n in counts.gating().items() if s not in tripping}
    if any(milder.values()):
        parts.append(_counts(milder))
    return "; ".join(parts) + _not_indexable(counts) + _clauses(counts) + _accepted(counts)


def _not_indexable(counts: RunCounts) -> str:
    """`; 250 of 3,000 listed URLs cannot be indexed`: how bad, beside the error count.

    With --history, of the site as last known, and how much of it this run checked:
    `; 17 of 2,028 listed URLs cannot be indexed, as last known; 800 checked this run`.
    """
    known = counts.known
    if known is not None:
        text = (
            f"; {known.not_indexable:,} of {counts.urls:,} listed URLs cannot be indexed, "
            f"as last known; {known.requested:,} checked this run"
        )
        return text + (f", {known.never_checked:,} never checked" if known.never_checked else "")
    if not counts.not_indexable:
        return ""
    return f"; {counts.not_indexable:,} of {counts.urls:,} listed URLs cannot be indexed"


def _clauses(counts: RunCounts) -> str:
    """`; Googlebot crawled 61 % of listed indexable URLs in 30 days`: the sections' words."""
    return "".join(f"; {clause}" for clause in counts.clauses)


def _accepted(counts: RunCounts) -> str:
    """`; 12 accepted (--accept-file)`: known issues, reported but left out of the gate."""
    accepted = sum(counts.accepted.values())
    return f"; {accepted:,} accepted (--accept-file)" if accepted else ""


def _counts(counts: Mapping[Severity, int]) -> str:
    """`12 errors, 1 warning` (zeros left out)."""
    return ", ".join(_n(n, severity.value) for severity, n in counts.items() if n)


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"

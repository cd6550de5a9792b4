"""The run's verdict in one line, the same for the terminal and the HTML report. Pure: no I/O."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from auditor.codes import Severity
from auditor.config import FailOn
from auditor.errors import ExitCode
from auditor.models import SitemapKind
from auditor.results.samples import Samples
from auditor.results.summary import Summary, exit_code


class Outcome(StrEnum):
    """What the run says about the site (or about itself, when it did not finish)."""

    PASS = "PASS"  # noqa: S105 - a verdict, not a password; nothing at or above --fail-on
    FAIL = "FAIL"  # findings at or above --fail-on
    INCOMPLETE = "INCOMPLETE"  # interrupted: the counts cover what was read
    FAILED = "FAILED"  # an internal failure stopped the run


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome, and a short sentence of counts that says why."""

    outcome: Outcome
    text: str

    @property
    def line(self) -> str:
        """`FAIL: 12 errors in 3 of 9 sitemaps; 245 of 1,200 URLs broken`."""
        return f"{self.outcome.value}: {self.text}"


def judge(
    summary: Summary,
    samples: Samples,
    *,
    complete: bool,
    failed: bool,
    fail_on: FailOn,
) -> Verdict:
    """The verdict the exit code stands for (summary.exit_code), with the counts behind it."""
    counts = summary.by_severity()
    so_far = _counts(counts) or "no findings"
    if failed:
        return Verdict(Outcome.FAILED, f"an internal error stopped the run; so far {so_far}")
    if not complete:
        read = f"{_n(summary.sitemaps, 'document')} and {_n(summary.urls, 'URL')}"
        return Verdict(Outcome.INCOMPLETE, f"interrupted after {read}; so far {so_far}")
    sitemaps = summary.sitemaps - summary.sitemaps_by_kind[SitemapKind.ROBOTS.value]
    if exit_code(summary, fail_on) is ExitCode.OK:
        scope = f"{_n(sitemaps, 'sitemap')} and {_n(summary.urls, 'URL')}"
        if fail_on is FailOn.NEVER:
            return Verdict(Outcome.PASS, f"{scope} (--fail-on never); {so_far}")
        if not any(counts.values()):
            return Verdict(Outcome.PASS, f"{scope}, no findings")
        return Verdict(Outcome.PASS, f"{scope}, no {fail_on.value}s; {so_far}")
    return Verdict(Outcome.FAIL, _failure(summary, samples, sitemaps, fail_on))


def broken_sitemaps(summary: Summary, samples: Samples) -> int:
    """Sitemaps with errors of their own, or listing URLs that have errors."""
    failing = {url for url, counts in summary.by_sitemap.items() if counts.failing}
    return len(samples.erring_sitemaps | set(samples.url_errors) | failing)


def _failure(summary: Summary, samples: Samples, sitemaps: int, fail_on: FailOn) -> str:
    counts = summary.by_severity()
    tripping = {severity: n for severity, n in counts.items() if fail_on.trips(severity)}
    parts = [_counts(tripping)]
    broken = broken_sitemaps(summary, samples)
    if broken and sitemaps:
        parts[0] += f" in {broken:,} of {_n(sitemaps, 'sitemap')}"
    if samples.broken_urls:
        parts.append(f"{samples.broken_urls:,} of {_n(summary.urls, 'URL')} broken")
    milder = {severity: n for severity, n in counts.items() if severity not in tripping}
    if any(milder.values()):
        parts.append(_counts(milder))
    return "; ".join(parts)


def _counts(counts: dict[Severity, int]) -> str:
    """`12 errors, 1 warning` (zeros left out)."""
    return ", ".join(_n(n, severity.value) for severity, n in counts.items() if n)


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"

"""The baseline's section of the report: `diff`, the run held against an earlier report.

Counts, and example lists capped at MAX_EXAMPLES (the first by URL: the same every run); the
regressions themselves are kept in the comparison's store, which JUnit reads back one at a
time. Its views are auditor.wings.baseline.diff_view's. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from auditor.codes import Code
from auditor.config import FailOn
from auditor.models import Regression
from auditor.report.section import HtmlPart, Json, Lines, MakeGauge, RegressionSource
from auditor.wings.baseline.compare import MAX_EXAMPLES, BaselineHead, Drop, DropLimit, UrlChange
from auditor.wings.baseline.diff_view import diff_lines, diff_markdown, diff_part

_CODES = {code.value: code for code in Code}


@dataclass(frozen=True, slots=True)
class DiffSection:
    """What changed since the baseline, and what regressed (docs/reference/report.md)."""

    head: BaselineHead
    fail_on_new: FailOn
    regressions: int  # subjects that regressed, each once
    url_regressions: int = 0  # ...of them URLs
    regression_examples: tuple[Regression, ...] = ()  # URLs first
    sitemaps_added: tuple[str, ...] = ()
    sitemaps_removed: tuple[str, ...] = ()
    urls_added: int = 0
    urls_added_examples: tuple[str, ...] = ()
    urls_removed: int = 0
    urls_removed_examples: tuple[str, ...] = ()
    urls_changed: int = 0
    urls_changed_examples: tuple[UrlChange, ...] = ()
    became_not_indexable: int = 0
    became_indexable: int = 0
    sitemaps_dropping: tuple[Drop, ...] = ()  # over --max-drop, the first MAX_EXAMPLES
    max_drop: DropLimit = field(default_factory=DropLimit)
    new_findings: Mapping[str, int] = field(default_factory=dict)  # by code, sorted
    resolved_findings: Mapping[str, int] = field(default_factory=dict)
    cases: RegressionSource | None = None  # every regression, read back for JUnit

    place = "diff"
    last_known = None

    @property
    def new_codes(self) -> Mapping[Code, int]:
        """Findings by code that are new since the baseline (codes this version knows)."""
        return {_CODES[name]: n for name, n in self.new_findings.items() if name in _CODES}

    def to_json(self) -> Json:
        """The report's `diff`."""
        return {
            "baseline": self.head.source,
            "baseline_generated_at": self.head.generated_at,
            "max_examples": MAX_EXAMPLES,
            "fail_on_new": self.fail_on_new.value,
            "regressions": self.regressions,
            "regression_examples": [item.to_json() for item in self.regression_examples],
            "sitemaps_added": list(self.sitemaps_added),
            "sitemaps_removed": list(self.sitemaps_removed),
            "urls_added": self.urls_added,
            "urls_added_examples": list(self.urls_added_examples),
            "urls_removed": self.urls_removed,
            "urls_removed_examples": list(self.urls_removed_examples),
            "urls_changed": self.urls_changed,
            "urls_changed_examples": [change.to_json() for change in self.urls_changed_examples],
            "urls_broken": self.url_regressions,
            "urls_broken_examples": [
                item.subject for item in self.regression_examples if item.kind == "url"
            ],
            "became_not_indexable": self.became_not_indexable,
            "became_indexable": self.became_indexable,
            "sitemaps_dropping": [drop.to_json() for drop in self.sitemaps_dropping],
            "max_drop": {"percent": self.max_drop.share_pct, "urls": self.max_drop.urls},
            "new_findings": dict(self.new_findings),
            "resolved_findings": dict(self.resolved_findings),
        }

    def html(self) -> HtmlPart:
        """The part the report opens with: what is new, what was fixed, what changed."""
        return diff_part(self)

    def lines(self) -> Lines:
        """Two lines after the codes."""
        return Lines(tail=diff_lines(self))

    def gauges(self, gauge: MakeGauge, target: str) -> None:
        """Regressions since the baseline (docs/reference/metrics.md)."""
        gauge("regressions", "Regressions since the baseline.").labels(target).set(self.regressions)

    def markdown(self) -> str:
        """What regressed, what is new and fixed, the URLs added, removed and changed."""
        return diff_markdown(self)

    def junit(self) -> RegressionSource | None:
        """A failing case per regression, in a suite of their own."""
        return self.cases

"""What the baseline's HTML part shows, as records (auditor.wings.baseline.diff_section).

With a baseline the report opens with it: what is new (the regressions, then the new findings
by code), what was fixed, and the URLs that changed, each with its previous and current values.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from auditor.codes import Code
from auditor.report.html_rows import Link
from auditor.wings.baseline.compare import FieldChange

TEMPLATE = "auditor.wings.baseline:changes.html.j2"


@dataclass(frozen=True, slots=True)
class ChangeLine:
    """A URL whose facts changed since the baseline, field by field."""

    url: Link
    fields: tuple[FieldChange, ...]
    regression: bool


@dataclass(frozen=True, slots=True)
class RegressionLine:
    """One regression: what regressed, and why."""

    kind: str  # url, sitemap, target
    subject: Link
    codes: tuple[Code, ...]
    became_not_indexable: str | None  # the reason, as the report says it


@dataclass(frozen=True, slots=True)
class DiffView:
    """The comparison with a baseline report (`--baseline`), as the report shows it."""

    baseline: str  # which report: its path, or when it was made
    regressions: int
    fail_on_new: str
    regression_lines: Sequence[RegressionLine]  # a bounded sample, URLs first
    new_codes: Mapping[Code, int]  # findings by code that are new since the baseline
    resolved_codes: Mapping[Code, int]
    became_not_indexable: int = 0
    became_indexable: int = 0
    sitemaps_added: Sequence[str] = ()  # bounded samples; the totals are below
    sitemaps_removed: Sequence[str] = ()
    sitemaps_added_total: int = 0
    sitemaps_removed_total: int = 0
    urls_added: int = 0
    urls_removed: int = 0
    urls_added_examples: Sequence[str] = ()
    urls_removed_examples: Sequence[str] = ()
    changed: Sequence[ChangeLine] = ()  # a bounded sample
    changed_total: int = 0

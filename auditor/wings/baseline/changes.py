"""What changed between two reports, URL by URL, as `--baseline` compares a run with one.

For notebooks (`Report.changes_frame(baseline)`): every URL added, removed or changed, not the
50 examples a report's `diff` keeps. The two reports are joined on disk (a temporary sqlite
file), so two reports of a million URLs compare in flat memory. Blocking.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

from auditor.config import FailOn
from auditor.report.reader import ReportReader
from auditor.wings.baseline.baseline_reader import load_comparison, report_rows
from auditor.wings.baseline.compare import Gate, added_regression, verdict_label
from auditor.wings.baseline.comparison_rows import UrlFacts


def changes(baseline: Path, report: Path, *, fail_on_new: FailOn) -> Iterator[dict[str, object]]:
    """One row per URL added, removed or changed from `baseline` to `report`."""
    gate = Gate(fail_on_new)
    with tempfile.TemporaryDirectory(prefix="sitemap-audit-") as folder:
        comparison = load_comparison(baseline, folder=Path(folder), gate=gate)
        try:
            reader = ReportReader(report)
            comparison.add_baseline(report_rows(reader, reader.head().targets), current=True)
            for old, new, change in comparison.changed_urls():
                regression = change.regression if change else None
                if old is None and new is not None:
                    regression = added_regression(new, gate)
                codes = change.new_codes if change else None
                yield _row(old, new, codes, regression=regression is not None)
        finally:
            comparison.discard()


def _row(
    old: UrlFacts | None,
    new: UrlFacts | None,
    added: tuple[str, ...] | None,
    *,
    regression: bool,
) -> dict[str, object]:
    either = new or old
    assert either is not None
    kind = "changed" if old is not None and new is not None else "added" if new else "removed"
    before, after = (
        set(old.codes.split()) if old else set(),
        set(new.codes.split()) if new else set(),
    )
    return {
        "url": either.loc,
        "change": kind,
        "status_before": old.status if old else None,
        "status_after": new.status if new else None,
        "indexability_before": verdict_label(old.verdict) if old else None,
        "indexability_after": verdict_label(new.verdict) if new else None,
        "new_codes": " ".join(added if added is not None else sorted(after - before)) or None,
        "resolved_codes": " ".join(sorted(before - after)) or None,
        "regression": regression,
    }

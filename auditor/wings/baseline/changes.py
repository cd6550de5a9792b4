"""What changed between two reports, URL by URL, as `--baseline` compares a run with one.

For notebooks (`Report.changes_frame()`): every URL added, removed or changed, not the 50
examples a report's `diff` keeps. A report made with `--baseline` holds what it was compared
with (`diff.baseline`, `diff.fail_on_new`) and which findings were known issues (`accepted`):
the rows are judged as the run judged them, so their `regression` never contradicts the report.
The two reports are joined on disk (a temporary sqlite file), so two reports of a million URLs
compare in flat memory. Blocking.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from auditor.codes import Code
from auditor.config import FailOn
from auditor.errors import ReportReadError
from auditor.report.reader import ReportReader
from auditor.wings.baseline.acceptance import AcceptRules
from auditor.wings.baseline.baseline_reader import load_comparison, report_rows
from auditor.wings.baseline.compare import Gate, added_regression, verdict_label
from auditor.wings.baseline.comparison_rows import UrlFacts


@dataclass(frozen=True, slots=True)
class Compared:
    """What a report was compared with, as its own `diff` says (None: no --baseline)."""

    baseline: Path | None
    fail_on_new: FailOn | None


def compared_in(report: Path) -> Compared:
    """The baseline and `--fail-on-new` a report was made with (both None without a diff)."""
    diff = ReportReader(report).diff()
    if diff is None:
        return Compared(None, None)
    level = FailOn(str(diff.get("fail_on_new", FailOn.ERROR.value)))
    return Compared(Path(str(diff["baseline"])), level)


def baseline_of(report: Path, given: Path | None) -> Path:
    """The baseline file the run was given: from the current folder, else the report's.

    ReportReadError when the report names none (no --baseline) or it is not there now.
    """
    if given is None:
        raise ReportReadError(
            f"{report}: made without --baseline, it holds no diff; give changes_frame(baseline)"
        )
    found = next((p for p in (given, report.parent / given) if p.is_file()), None)
    if found is None:
        raise ReportReadError(
            f"{report} was compared with {given}, which is not there now; "
            "give changes_frame(baseline=PATH)"
        )
    return found


class MarkedInReport(AcceptRules):
    """The known issues as a report marked them (`accepted`): the run's own judgement of them."""

    def __init__(self, pairs: set[tuple[str, str]]) -> None:
        """`pairs`: (code, URL) of every accepted finding about a URL."""
        super().__init__(())
        self._pairs = pairs

    def __bool__(self) -> bool:
        return bool(self._pairs)

    def accepts(self, code: Code, url: str | None) -> bool:
        """Whether the report marked a finding of `code` about `url` as known."""
        return (code.value, url or "") in self._pairs


def accepted_in(report: Path) -> MarkedInReport:
    """The report's accepted findings about URLs, read in one pass."""
    pairs: set[tuple[str, str]] = set()
    for url in ReportReader(report).urls():
        for item in url.findings:
            if item.accepted:  # as the run asked: about the finding's URL, or the listed one
                pairs.update({(item.code.value, item.url or url.loc), (item.code.value, url.loc)})
    return MarkedInReport(pairs)


def changes(baseline: Path, report: Path, *, fail_on_new: FailOn) -> Iterator[dict[str, object]]:
    """One row per URL added, removed or changed from `baseline` to `report`."""
    gate = Gate(fail_on_new, accept=accepted_in(report))
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
        "sitemap": either.sitemap,
        "change": kind,
        "status_before": old.status if old else None,
        "status_after": new.status if new else None,
        "indexability_before": verdict_label(old.verdict) if old else None,
        "indexability_after": verdict_label(new.verdict) if new else None,
        "new_codes": " ".join(added if added is not None else sorted(after - before)) or None,
        "resolved_codes": " ".join(sorted(before - after)) or None,
        "regression": regression,
    }
